/**
 * The committed wire fixtures: `<kind>/fixtures/v<N>[-<shape>].bin` holds a
 * frame exactly as a build speaking version N sent it, `.json` next to it the
 * message today's decoder must read from it (defaults filled in).
 *
 * A fixture file is written once, when its version is made, and never
 * rewritten: that is what lets it stand for the builds already deployed. The
 * shapes version 1 had before a field was appended (`v1-before-*`) were
 * written by the encoders of their time (the commits before the field).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KIND_IDS } from './codec';
import { WIRE_VERSIONS, decodeMessage, encodeMessage } from './index';
import type { Message, MessageKind } from './types';
import { frameErrorCode } from './frame.test-util';

interface Fixture {
  kind: MessageKind;
  name: string;
  version: number;
  frame: Buffer;
  message: Message;
}

const KINDS = Object.keys(KIND_IDS) as MessageKind[];
const dirOf = (kind: MessageKind) => join(__dirname, kind.replace('.', '-'), 'fixtures');

/** The JSON form of a message: uins as a plain array. */
function messageFrom(json: string): Message {
  const parsed = JSON.parse(json) as Message & { uins?: number[] };
  return parsed.uins === undefined ? parsed : ({ ...parsed, uins: Uint32Array.from(parsed.uins) } as Message);
}

function fixturesOf(kind: MessageKind): Fixture[] {
  return readdirSync(dirOf(kind))
    .filter((file) => file.endsWith('.bin'))
    .map((file) => {
      const name = file.slice(0, -'.bin'.length);
      const version = Number(/^v(\d+)(-|$)/.exec(name)?.[1]);
      const message = messageFrom(readFileSync(join(dirOf(kind), `${name}.json`), 'utf8'));
      return { kind, name, version, frame: readFileSync(join(dirOf(kind), file)), message };
    });
}

const ALL = KINDS.flatMap(fixturesOf);

describe('wire fixtures, one or more per version of every kind', () => {
  it('has a fixture for every version every kind still reads, each with the kind and version bytes of its name', () => {
    for (const kind of KINDS) {
      const versions = new Set(fixturesOf(kind).map((f) => f.version));
      for (const version of WIRE_VERSIONS[kind].accepts)
        expect([kind, version, versions.has(version)]).toEqual([kind, version, true]);
    }
    for (const f of ALL)
      expect([f.kind, f.name, f.frame[0], f.frame[1], f.message.kind]).toEqual([
        f.kind,
        f.name,
        KIND_IDS[f.kind],
        f.version,
        f.kind,
      ]);
  });

  it.each(ALL.map((f) => [`${f.kind} ${f.name}`, f] as const))('decodes %s with the decoder of today', (_, f) => {
    if (WIRE_VERSIONS[f.kind].accepts.includes(f.version)) expect(decodeMessage(f.frame)).toEqual(f.message);
    // A version no longer read keeps its fixture: today's decoder must refuse it by name.
    else expect(frameErrorCode(() => decodeMessage(f.frame))).toBe('FRAME_UNSUPPORTED_VERSION');
  });

  it('encodes each message of a fixture at the version sent today to exactly its bytes', () => {
    const current = ALL.filter((f) => f.version === WIRE_VERSIONS[f.kind].sends);
    expect(new Set(current.map((f) => f.kind)).size).toBe(KINDS.length);
    for (const f of current)
      expect([f.kind, f.name, encodeMessage(f.message).toString('hex')]).toEqual([
        f.kind,
        f.name,
        f.frame.toString('hex'),
      ]);
  });
});
