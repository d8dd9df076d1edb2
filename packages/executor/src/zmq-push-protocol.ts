/**
 * The ZeroMQ push gateway protocol, version 1 (docs/delivery.md, "The ZeroMQ
 * push gateway"): one multipart request per batch from Herald's DEALER, one
 * multipart acknowledge per request from the push service's ROUTER.
 *
 *   request:     "1" | request id | idempotency key | header JSON | uins
 *   acknowledge: "1" | request id | status | detail
 *
 * The request id is 4 bytes, uint32 little-endian, echoed as received; uins
 * are uint32 little-endian, 4 bytes each, ascending. Status and detail:
 *   accepted   detail empty, or {"rejected":[{"uin","reason"}]} (UTF-8 JSON)
 *   throttled  detail the retry-after in ms, ASCII decimal (empty: the channel's default wait)
 *   failed     detail a UTF-8 reason (retriable)
 *   refused    detail a UTF-8 reason (the batch itself, never retried)
 */
import type { Delivery, RecipientRejection } from '@herald/core/ports';
import { MAX_ANSWER_BYTES, MAX_RETRY_AFTER_MS, parseRejections } from './webhook-answer';

export const ZMQ_PUSH_VERSION = '1';
export const ZMQ_ACK_STATUSES = ['accepted', 'throttled', 'failed', 'refused'] as const;

/** Frame 3 of a request: what every recipient of the batch receives. */
export interface ZmqPushHeader {
  taskId: number;
  atLogin: boolean;
  displayAt: number | null;
  content: Delivery['content'];
  /** A personalised batch: `contents[i]` for `uins[i]`; absent otherwise. */
  contents?: Delivery['content'][];
}

/** An acknowledge as the gateway reads it. */
export type ZmqAck =
  | { status: 'accepted'; rejected: RecipientRejection[] }
  | { status: 'throttled'; retryAfterMs: number | undefined }
  | { status: 'failed'; reason: string }
  | { status: 'refused'; reason: string };

/** The idempotency key of a batch, the webhook's: `<taskId>:<P|L>:<first uin>:<last uin>:<count>`. */
export function zmqIdempotencyKey(delivery: Delivery): string {
  const { uins } = delivery;
  return `${delivery.taskId}:${delivery.atLogin ? 'L' : 'P'}:${uins[0]}:${uins[uins.length - 1]}:${uins.length}`;
}

/** The request id as its frame: uint32 little-endian. */
export function requestIdFrame(id: number): Buffer {
  const frame = Buffer.alloc(4);
  frame.writeUInt32LE(id >>> 0);
  return frame;
}

/** The five frames of one request. */
export function encodeZmqRequest(id: number, delivery: Delivery): Buffer[] {
  const header: ZmqPushHeader = {
    taskId: delivery.taskId,
    atLogin: delivery.atLogin,
    displayAt: delivery.displayAt ?? null,
    content: delivery.content,
    ...(delivery.contents === undefined ? {} : { contents: [...delivery.contents] }),
  };
  const uins = Buffer.alloc(delivery.uins.length * 4);
  for (let i = 0; i < delivery.uins.length; i++) uins.writeUInt32LE(delivery.uins[i]!, i * 4);
  return [
    Buffer.from(ZMQ_PUSH_VERSION),
    requestIdFrame(id),
    Buffer.from(zmqIdempotencyKey(delivery)),
    Buffer.from(JSON.stringify(header)),
    uins,
  ];
}

/** The request id an acknowledge names, or undefined when even that cannot be read. */
export function ackRequestId(frames: readonly Buffer[]): number | undefined {
  const id = frames[1];
  return id !== undefined && id.length === 4 ? id.readUInt32LE(0) : undefined;
}

/**
 * Reads an acknowledge for a request of `uins`; `{ malformed }` says why it
 * cannot be read (wrong frame count or version, unknown status, a retry-after
 * that is not a number, a rejection list that is not JSON of the batch's uins,
 * more than MAX_ANSWER_BYTES in all). The gateway takes a malformed answer as
 * a failure: the service's answer cannot be trusted to say what it accepted.
 */
export function decodeZmqAck(frames: readonly Buffer[], uins: Uint32Array): ZmqAck | { malformed: string } {
  const bytes = frames.reduce((sum, frame) => sum + frame.length, 0);
  if (bytes > MAX_ANSWER_BYTES) return { malformed: `answer of ${bytes} bytes, above ${MAX_ANSWER_BYTES}` };
  if (frames.length !== 4) return { malformed: `${frames.length} frames, not 4` };
  if (frames[0]!.toString('latin1') !== ZMQ_PUSH_VERSION)
    return { malformed: `version ${JSON.stringify(frames[0]!.toString('latin1').slice(0, 16))}, not "1"` };
  const status = frames[2]!.toString('latin1');
  const detail = frames[3]!.toString('utf8');
  switch (status) {
    case 'accepted': {
      const parsed = parseRejections(detail, uins);
      return 'malformed' in parsed ? parsed : { status, rejected: parsed.rejected };
    }
    case 'throttled': {
      if (detail === '') return { status, retryAfterMs: undefined };
      if (!/^\d{1,10}$/.test(detail)) return { malformed: 'throttled with a retry-after that is not whole ms' };
      return { status, retryAfterMs: Math.min(MAX_RETRY_AFTER_MS, Number(detail)) };
    }
    case 'failed':
    case 'refused':
      return { status, reason: detail.slice(0, 200) || 'no reason given' };
    default:
      return {
        malformed: `status ${JSON.stringify(status.slice(0, 16))} is not one of ${ZMQ_ACK_STATUSES.join(', ')}`,
      };
  }
}
