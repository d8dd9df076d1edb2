/**
 * unit.progress, version 3. executor -> scheduler: version 2, then when the
 * executor held the batch for the task's quiet hours (docs/local-time.md,
 * "Held, or queued offline"): a report covering no recipients (from = to, the
 * held batch's first position) that says until when.
 *
 *   offset  size  field
 *   0..           as version 2 (kind 8, version 3, taskId .. refusal)
 *   ..      8     quietUntil u64 LE: epoch ms the batch is held until; 0: not held
 *
 * 0 decodes as no `quietUntil` (the message as version 2 reads it).
 */
import { FrameWriter, openFrame } from '../codec';
import type { UnitProgressMessage } from '../types';
import { readFields, writeFields } from './v2';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 3;

export function encode(msg: UnitProgressMessage): Buffer {
  return writeFields(new FrameWriter('unit.progress', VERSION), msg)
    .u64(msg.quietUntil ?? 0, 'quietUntil')
    .finish();
}

export function decode(frame: Buffer): UnitProgressMessage {
  const r = openFrame(frame, 'unit.progress', VERSION);
  const msg = readFields(r);
  const quietUntil = r.u64('quietUntil');
  r.end();
  return quietUntil === 0 ? msg : { ...msg, quietUntil };
}
