import { ValidationError } from '../errors';
import { APTA_STATES, type AptaState } from './states';

/**
 * The four APTA messages. Each carries the sender's advert: who it is, its
 * heartbeat (incarnation, seq), its state, and its job-process table. The
 * transport gives each kind a versioned codec; this module only says what
 * they mean.
 *
 *   hello        broadcast every helloIntervalMs and on every state change
 *   hello.reply  the answer to a hello (a reply is never answered)
 *   lsr.request  link-state request: "membership is changing, send me your
 *                table". Sent by an ONLINE process to every live process in
 *                its table, and by a WORKING process whose ring no longer
 *                matches the live membership.
 *   lsr.reply    the answer, echoing requestId
 */
export const APTA_MESSAGE_KINDS = ['hello', 'hello.reply', 'lsr.request', 'lsr.reply'] as const;
export type AptaMessageKind = (typeof APTA_MESSAGE_KINDS)[number];

/** One row of a job-process table as sent on the wire: a process as it last described itself. */
export interface AptaTableEntry {
  id: string;
  /** Start time (or any number that rises across restarts) of that process. */
  incarnation: number;
  /** Its heartbeat counter within the incarnation; rises with every Hello it broadcasts. */
  seq: number;
  state: AptaState;
  /** False for processes that follow membership without owning tasks (interface processes). */
  takesWork: boolean;
}

/** What every message says about its sender. */
export interface AptaAdvert {
  from: string;
  incarnation: number;
  seq: number;
  state: AptaState;
  takesWork: boolean;
  /** The sender's job-process table: every peer it currently believes alive (never itself, never OFFLINE ones). */
  table: readonly AptaTableEntry[];
}

export type AptaHello = AptaAdvert & { kind: 'hello' };
export type AptaHelloReply = AptaAdvert & { kind: 'hello.reply' };
export type AptaLsrRequest = AptaAdvert & { kind: 'lsr.request'; requestId: number };
export type AptaLsrReply = AptaAdvert & { kind: 'lsr.reply'; requestId: number };
export type AptaMessage = AptaHello | AptaHelloReply | AptaLsrRequest | AptaLsrReply;

/** Process ids: what config and the ring accept. */
export const MEMBER_ID = /^[A-Za-z0-9_.-]{1,64}$/;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function checkEntry(entry: unknown, where: string): void {
  const e = entry as Partial<AptaTableEntry> | null;
  if (e === null || typeof e !== 'object') throw new ValidationError(`${where} must be an object`);
  if (typeof e.id !== 'string' || !MEMBER_ID.test(e.id))
    throw new ValidationError(`${where}.id must be a process id`, { id: e.id });
  if (!isCount(e.incarnation))
    throw new ValidationError(`${where}.incarnation must be a non-negative integer`, { incarnation: e.incarnation });
  if (!isCount(e.seq)) throw new ValidationError(`${where}.seq must be a non-negative integer`, { seq: e.seq });
  if (!(APTA_STATES as readonly unknown[]).includes(e.state))
    throw new ValidationError(`${where}.state must be an APTA state`, { state: e.state });
  if (typeof e.takesWork !== 'boolean') throw new ValidationError(`${where}.takesWork must be a boolean`);
}

/**
 * Checks a message's shape (a decoder that built it from bytes already did;
 * this guards the state machine against a hand-made one). Throws
 * ValidationError; the receiver counts and drops such a message.
 */
export function checkAptaMessage(message: AptaMessage): AptaMessage {
  if (message === null || typeof message !== 'object') throw new ValidationError('APTA message must be an object');
  if (!(APTA_MESSAGE_KINDS as readonly unknown[]).includes(message.kind))
    throw new ValidationError('unknown APTA message kind', { kind: message.kind });
  checkEntry({ ...message, id: message.from }, message.kind);
  if (!Array.isArray(message.table)) throw new ValidationError(`${message.kind}.table must be a list`);
  message.table.forEach((entry, i) => checkEntry(entry, `${message.kind}.table[${i}]`));
  if ((message.kind === 'lsr.request' || message.kind === 'lsr.reply') && !isCount(message.requestId)) {
    throw new ValidationError(`${message.kind}.requestId must be a non-negative integer`, {
      requestId: message.requestId,
    });
  }
  return message;
}
