/**
 * One kind's codec over its versions, in the style of kafkajs'
 * `protocol/requests/<api>/v<N>/`: each version is a module of its own
 * (`<kind>/v<N>.ts`) that writes and reads exactly that version, and the
 * kind's index puts them together here. `encode` writes the version this build
 * sends; `decode` reads byte 1 and hands the frame to that version's decoder,
 * or refuses a version this build does not accept with FRAME_UNSUPPORTED_VERSION
 * naming it (details: kind, version, accepts).
 *
 * Why per version rather than one decoder that grows: a grammar once sent is
 * never edited, so a frame from an older build decodes with the very code that
 * described it, and its byte fixture keeps proving so (docs/operations.md,
 * "Wire versions").
 */
import { checkHeader, unsupportedVersion } from './codec';
import type { MessageKind } from './types';

/** One version of one kind: a `<kind>/v<N>.ts` module. */
export interface VersionCodec<M> {
  readonly VERSION: number;
  encode(msg: M): Buffer;
  decode(frame: Buffer): M;
}

export interface KindCodec<M> {
  readonly kind: MessageKind;
  /** The version `encode` writes. */
  readonly sends: number;
  /** The versions `decode` reads, oldest first. */
  readonly accepts: readonly number[];
  encode(msg: M): Buffer;
  decode(frame: Buffer): M;
  /** Writes `msg` as one of the versions this build reads: what an older build would send, for mixed-version tests and drills. */
  encodeAs(msg: M, version: number): Buffer;
}

/** Builds a kind's codec from the version modules it still reads; `sends` must be one of them. */
export function versionedCodec<M>(
  kind: MessageKind,
  sends: VersionCodec<M>,
  reads: readonly VersionCodec<M>[],
): KindCodec<M> {
  const versions = new Map(reads.map((v) => [v.VERSION, v]));
  if (versions.get(sends.VERSION) !== sends)
    throw new Error(`${kind}: the version sent (${sends.VERSION}) must be one of the versions read`);
  const accepts = [...versions.keys()].sort((a, b) => a - b);
  return {
    kind,
    sends: sends.VERSION,
    accepts,
    encode: (msg) => sends.encode(msg),
    decode(frame: Buffer): M {
      checkHeader(frame, kind);
      const version = versions.get(frame[1]!);
      if (version === undefined) throw unsupportedVersion(kind, frame[1]!, accepts);
      return version.decode(frame);
    },
    encodeAs(msg: M, version: number): Buffer {
      const codec = versions.get(version);
      if (codec === undefined) throw unsupportedVersion(kind, version, accepts);
      return codec.encode(msg);
    },
  };
}
