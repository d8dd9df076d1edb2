/**
 * apta, version 1. Between the members of the cluster (scheduler and interface
 * processes): one APTA membership message, a hello, hello.reply, lsr.request
 * or lsr.reply (docs/apta.md). The four share one advert and one frame kind;
 * `type` tells them apart and only the LSR pair carries a requestId.
 *
 *   offset  size  field
 *   0       1     kind         u8 = 10
 *   1       1     version      u8 = 1
 *   2       1     type         u8: 1 hello, 2 hello.reply, 3 lsr.request, 4 lsr.reply
 *   3       1     status       u8: the sender's state and takesWork (below)
 *   4       8     incarnation  u64 LE
 *   12      8     seq          u64 LE
 *   20      8     requestId    u64 LE, lsr.request and lsr.reply only (absent for types 1 and 2)
 *   ..      2+n   from         str (u16 LE length n, then n bytes UTF-8)
 *   ..      4     count        u32 LE, rows in the job-process table (0 allowed)
 *   ..            rows         count x row, in the sender's order
 *                 (end: exactly after the last row)
 *
 *   row    = status u8, incarnation u64 LE, seq u64 LE, id str
 *            (19 + id bytes: 29 bytes for a 10-character id, so a table
 *            of 50 processes is about 1.5 KB)
 *   status = bits 0-2 the state: 0 JOINING, 1 ONLINE, 2 SILENCE, 3 WORKING, 4 OFFLINE
 *            bit 7     takesWork
 *            bits 3-6  zero
 *            (0x83: WORKING and takes work; 0x03: WORKING, an interface process)
 *
 * Binary rather than JSON: a Hello goes to every member every helloIntervalMs
 * and carries the whole table, so it is the one frame whose size grows with the
 * cluster. A decoded message is then checked with core's `checkAptaMessage`
 * (process ids, counts, ...): a frame that decodes to a message the state
 * machine would refuse is FRAME_MALFORMED too, and so is encoding one.
 */
import {
  APTA_STATES,
  checkAptaMessage,
  type AptaMessage,
  type AptaState,
  type AptaTableEntry,
} from '@herald/core/apta';
import { ValidationError } from '@herald/core';
import { FrameWriter, malformed, openFrame, type FrameReader } from '../codec';
import type { AptaEnvelope } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

type AptaKind = AptaMessage['kind'];

const TYPE_IDS = { hello: 1, 'hello.reply': 2, 'lsr.request': 3, 'lsr.reply': 4 } as const satisfies Record<
  AptaKind,
  number
>;
const TYPES = new Map<number, AptaKind>(Object.entries(TYPE_IDS).map(([kind, id]) => [id, kind as AptaKind]));
const TAKES_WORK = 0x80;
const STATE_MASK = 0x07;

function status(state: AptaState, takesWork: boolean): number {
  return APTA_STATES.indexOf(state) | (takesWork ? TAKES_WORK : 0);
}

function readStatus(r: FrameReader, field: string): { state: AptaState; takesWork: boolean } {
  const byte = r.u8(field);
  const state = APTA_STATES[byte & STATE_MASK];
  if ((byte & ~(STATE_MASK | TAKES_WORK)) !== 0 || state === undefined) {
    throw malformed(
      `apta: ${field} is 0x${byte.toString(16)}, not a state (0-4) with an optional takesWork bit (0x80)`,
      { kind: 'apta', field },
    );
  }
  return { state, takesWork: (byte & TAKES_WORK) !== 0 };
}

/** Runs core's shape check, reporting a refusal as a malformed frame. */
function checked(message: AptaMessage, doing: string): AptaMessage {
  try {
    return checkAptaMessage(message);
  } catch (error) {
    if (error instanceof ValidationError)
      throw malformed(`apta: ${doing}${error.message}`, { kind: 'apta', details: error.details });
    throw error;
  }
}

export function encode(msg: AptaEnvelope): Buffer {
  const message = checked(msg.message, 'cannot encode: ');
  const w = new FrameWriter('apta', VERSION)
    .u8(TYPE_IDS[message.kind], 'type')
    .u8(status(message.state, message.takesWork), 'status')
    .u64(message.incarnation, 'incarnation')
    .u64(message.seq, 'seq');
  if (message.kind === 'lsr.request' || message.kind === 'lsr.reply') w.u64(message.requestId, 'requestId');
  w.str(message.from, 'from').u32(message.table.length, 'count');
  message.table.forEach((row, i) => {
    w.u8(status(row.state, row.takesWork), `table[${i}].status`)
      .u64(row.incarnation, `table[${i}].incarnation`)
      .u64(row.seq, `table[${i}].seq`)
      .str(row.id, `table[${i}].id`);
  });
  return w.finish();
}

export function decode(frame: Buffer): AptaEnvelope {
  const r = openFrame(frame, 'apta', VERSION);
  const typeId = r.u8('type');
  const kind = TYPES.get(typeId);
  if (kind === undefined) throw malformed(`apta: type is ${typeId}, expected 1-4`, { kind: 'apta', field: 'type' });
  const { state, takesWork } = readStatus(r, 'status');
  const incarnation = r.u64('incarnation');
  const seq = r.u64('seq');
  const requestId = kind === 'lsr.request' || kind === 'lsr.reply' ? r.u64('requestId') : undefined;
  const from = r.str('from');
  const count = r.u32('count');
  const table: AptaTableEntry[] = [];
  for (let i = 0; i < count; i++) {
    const row = readStatus(r, `table[${i}].status`);
    const rowIncarnation = r.u64(`table[${i}].incarnation`);
    const rowSeq = r.u64(`table[${i}].seq`);
    const id = r.str(`table[${i}].id`);
    table.push({ id, incarnation: rowIncarnation, seq: rowSeq, state: row.state, takesWork: row.takesWork });
  }
  r.end();
  const advert = { from, incarnation, seq, state, takesWork, table };
  const message = (requestId === undefined ? { kind, ...advert } : { kind, requestId, ...advert }) as AptaMessage;
  return { kind: 'apta', message: checked(message, '') };
}
