/**
 * unit.progress, version 2: what this build reads and, between processes of
 * one build, sends (docs/operations.md, "Wire versions"). executor ->
 * scheduler: one batch of a unit is confirmed, with the recipients the
 * channel rejected for good by reason, whether the channel holds sending, and
 * whether it refused the batch whole. Version 1's fields, then:
 *
 *   offset  size  field
 *   0..42         as version 1 (kind 8, version 2, taskId .. done)
 *   43      1     reasons    u8 n, at most 64
 *   44            n times:   reason str (u16 LE length, UTF-8; a token of
 *                            [a-z0-9_.-], 1 to 64 characters, each once),
 *                            count u32 LE
 *   ..      1     channel    u8: 0 sending, 1 throttled, 2 unavailable
 *   ..            reason     str: why the channel holds (empty when sending)
 *   ..      1     refused    bool (u8 0 or 1)
 *   ..            refusal    str: the channel's reason (empty unless refused)
 *
 * No reasons decode as no `deadLetters` (the message as version 1 reads it).
 * A report with from = to covers no batch: it says the channel holds the
 * batch in hand (the scheduler records only the hold).
 */
import { DEAD_LETTER_REASON } from '@herald/core/task';
import { FrameWriter, malformed, openFrame, type FrameReader } from '../codec';
import type { UnitProgressMessage } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

/** Distinct dead-letter reasons one report carries at most (the channel's gateway folds the rest into `other`). */
export const MAX_REASONS = 64;
const CHANNEL_STATES = ['sending', 'throttled', 'unavailable'] as const;

export function encode(msg: UnitProgressMessage): Buffer {
  return writeFields(new FrameWriter('unit.progress', VERSION), msg).finish();
}

/** Writes version 2's fields after the header; version 3 appends its own after them. */
export function writeFields(frame: FrameWriter, msg: UnitProgressMessage): FrameWriter {
  const reasons = Object.entries(msg.deadLetters ?? {});
  if (reasons.length > MAX_REASONS)
    throw malformed(
      `unit.progress: cannot encode: ${reasons.length} dead-letter reasons, the limit is ${MAX_REASONS}`,
      {
        field: 'deadLetters',
      },
    );
  const w = frame
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u32(msg.unitNo, 'unitNo')
    .u64(msg.from, 'from')
    .u64(msg.to, 'to')
    .u32(msg.delivered, 'delivered')
    .u32(msg.offline, 'offline')
    .bool(msg.done, 'done')
    .u8(reasons.length, 'reasons');
  for (const [reason, count] of reasons) {
    if (!DEAD_LETTER_REASON.test(reason))
      throw malformed('unit.progress: cannot encode: a dead-letter reason is not a token of [a-z0-9_.-]', {
        field: 'deadLetters',
      });
    w.str(reason, 'deadLetters.reason').u32(count, 'deadLetters.count');
  }
  const state = msg.channel === undefined ? 0 : CHANNEL_STATES.indexOf(msg.channel.state);
  if (state <= 0 && msg.channel !== undefined)
    throw malformed('unit.progress: cannot encode: channel.state is neither throttled nor unavailable', {
      field: 'channel',
    });
  return w
    .u8(state, 'channel')
    .str(msg.channel?.reason ?? '', 'channel.reason')
    .bool(msg.refused !== undefined, 'refused')
    .str(msg.refused ?? '', 'refusal');
}

export function decode(frame: Buffer): UnitProgressMessage {
  const r = openFrame(frame, 'unit.progress', VERSION);
  const msg = readFields(r);
  r.end();
  return msg;
}

/** Reads version 2's fields after the header, leaving the reader at their end. */
export function readFields(r: FrameReader): UnitProgressMessage {
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const unitNo = r.u32('unitNo');
  const from = r.u64('from');
  const to = r.u64('to');
  const delivered = r.u32('delivered');
  const offline = r.u32('offline');
  const done = r.bool('done');
  const n = r.u8('reasons');
  if (n > MAX_REASONS) throw malformed(`unit.progress: ${n} dead-letter reasons, the limit is ${MAX_REASONS}`);
  const deadLetters: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const reason = r.str('deadLetters.reason');
    if (!DEAD_LETTER_REASON.test(reason) || Object.hasOwn(deadLetters, reason))
      throw malformed('unit.progress: a dead-letter reason is not a token of [a-z0-9_.-] or comes twice', {
        field: 'deadLetters',
      });
    deadLetters[reason] = r.u32('deadLetters.count');
  }
  const state = r.u8('channel');
  const channelState = CHANNEL_STATES[state];
  if (channelState === undefined) throw malformed(`unit.progress: channel state ${state} is not 0, 1 or 2`);
  const channelReason = r.str('channel.reason');
  const refused = r.bool('refused');
  const refusal = r.str('refusal');
  return {
    kind: 'unit.progress',
    taskId,
    epoch,
    unitNo,
    from,
    to,
    delivered,
    offline,
    done,
    // None: absent, the message as version 1 reads it.
    ...(n === 0 ? {} : { deadLetters }),
    ...(channelState === 'sending' ? {} : { channel: { state: channelState, reason: channelReason } }),
    ...(refused ? { refused: refusal } : {}),
  };
}
