/**
 * One entry point for every wire message: `encodeMessage` picks the kind's
 * codec from `msg.kind` and writes the version this build sends;
 * `decodeMessage` picks it from byte 0, and the kind's codec picks the
 * version's decoder from byte 1. Decoding throws only FrameError:
 * FRAME_MALFORMED, FRAME_UNKNOWN_KIND or FRAME_UNSUPPORTED_VERSION (details
 * name the version and the ones accepted).
 */
import { FrameError } from '@herald/core';
import { HEADER_BYTES, KIND_IDS, malformed } from './codec';
import { codec as apta } from './apta';
import { codec as channelDemand } from './channel-demand';
import { codec as channelThrottled } from './channel-throttled';
import { codec as hostLoad } from './host-load';
import { codec as preprocessRequest } from './preprocess-request';
import { codec as preprocessResult } from './preprocess-result';
import { codec as taskCommand } from './task-command';
import { codec as taskHalt } from './task-halt';
import { codec as taskSubmitted } from './task-submitted';
import { codec as unitBatch } from './unit-batch';
import { codec as unitProgress } from './unit-progress';
import { codec as unitReplan } from './unit-replan';
import { codec as unitRun } from './unit-run';
import { codec as userLogins } from './user-logins';
import type { Message, MessageKind } from './types';
import type { KindCodec } from './versioned';

type CodecOf<K extends MessageKind> = KindCodec<Extract<Message, { kind: K }>>;

const CODECS: { [K in MessageKind]: CodecOf<K> } = {
  'task.submitted': taskSubmitted,
  'task.command': taskCommand,
  'preprocess.request': preprocessRequest,
  'preprocess.result': preprocessResult,
  'unit.run': unitRun,
  'task.halt': taskHalt,
  'unit.batch': unitBatch,
  'unit.progress': unitProgress,
  'user.logins': userLogins,
  apta,
  'host.load': hostLoad,
  'unit.replan': unitReplan,
  'channel.throttled': channelThrottled,
  'channel.demand': channelDemand,
};

const BY_KIND_ID = new Map<number, KindCodec<Message>>(
  (Object.keys(CODECS) as MessageKind[]).map((kind) => [KIND_IDS[kind], CODECS[kind] as unknown as KindCodec<Message>]),
);

/** What this build speaks, per kind: the version it sends and the versions it reads (docs/operations.md lists the same). */
export const WIRE_VERSIONS: {
  readonly [K in MessageKind]: { readonly sends: number; readonly accepts: readonly number[] };
} = Object.fromEntries(
  (Object.keys(CODECS) as MessageKind[]).map((kind) => [
    kind,
    { sends: CODECS[kind].sends, accepts: CODECS[kind].accepts },
  ]),
) as { [K in MessageKind]: { sends: number; accepts: readonly number[] } };

export function encodeMessage(msg: Message): Buffer {
  return codecOf(msg).encode(msg);
}

/**
 * Writes a message as an older version this build still reads (WIRE_VERSIONS[kind].accepts):
 * the frame a previous build sends, for mixed-version tests and drills. Any
 * other version throws FRAME_UNSUPPORTED_VERSION.
 */
export function encodeMessageAs(msg: Message, version: number): Buffer {
  return codecOf(msg).encodeAs(msg, version);
}

export function decodeMessage(frame: Buffer): Message {
  if (frame.length < HEADER_BYTES) throw malformed(`frame is ${frame.length} bytes, shorter than the 2-byte header`);
  const codec = BY_KIND_ID.get(frame[0]!);
  if (codec === undefined)
    throw new FrameError('FRAME_UNKNOWN_KIND', `unknown message kind ${frame[0]}`, { kind: frame[0] });
  return codec.decode(frame);
}

function codecOf(msg: Message): KindCodec<Message> {
  if (!Object.hasOwn(CODECS, msg.kind))
    throw new FrameError(
      'FRAME_UNKNOWN_KIND',
      `cannot encode unknown message kind ${JSON.stringify((msg as { kind: unknown }).kind)}`,
    );
  return CODECS[msg.kind] as unknown as KindCodec<Message>;
}
