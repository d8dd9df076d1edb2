/**
 * Fuzz tests (fast-check) of the wire codec: decodeMessage takes frames from
 * other processes, so whatever the bytes it returns a message or throws
 * FrameError; every kind round-trips from arbitrary valid messages; and a
 * frame it accepts is exactly the encoding of what it returned (one frame
 * per message, so no mutated frame slips through as a different message),
 * at the version the frame has; the one exception is version 1's shapes
 * from before a field was appended, read with the field's default.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { APTA_STATES, type AptaMessage, type AptaTableEntry } from '@herald/core/apta';
import { FILTER_REASONS } from '@herald/core/task';
import { FrameError } from '@herald/core';
import { WIRE_VERSIONS, decodeMessage, encodeMessage, encodeMessageAs } from './index';
import { KIND_IDS } from './codec';
import type { Message, MessageKind } from './types';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

const u32 = fc.oneof(fc.constantFrom(0, 1, 0xffffffff), fc.nat({ max: 0xffffffff }));
const u64 = fc.oneof(fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.maxSafeNat());
/** Any well-formed string (astral characters included) of a modest size. */
const str = fc.string({ unit: 'binary', maxLength: 24 });
const uins = (minLength: number) => fc.uint32Array({ minLength, maxLength: 64 });
const memberId = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
const aptaState = fc.constantFrom(...APTA_STATES);

const tableEntry: fc.Arbitrary<AptaTableEntry> = fc.record({
  id: memberId,
  incarnation: u64,
  seq: u64,
  state: aptaState,
  takesWork: fc.boolean(),
});
const advert = fc.record({
  from: memberId,
  incarnation: u64,
  seq: u64,
  state: aptaState,
  takesWork: fc.boolean(),
  table: fc.array(tableEntry, { maxLength: 6 }),
});
const aptaMessage: fc.Arbitrary<AptaMessage> = fc.oneof(
  advert.map((a) => ({ kind: 'hello' as const, ...a })),
  advert.map((a) => ({ kind: 'hello.reply' as const, ...a })),
  fc.tuple(advert, u64).map(([a, requestId]) => ({ kind: 'lsr.request' as const, requestId, ...a })),
  fc.tuple(advert, u64).map(([a, requestId]) => ({ kind: 'lsr.reply' as const, requestId, ...a })),
);
const removed = fc.record(
  Object.fromEntries(FILTER_REASONS.map((reason) => [reason, u64])) as Record<
    (typeof FILTER_REASONS)[number],
    fc.Arbitrary<number>
  >,
  {
    requiredKeys: [],
  },
);

/** A load report: every field anywhere in its wire range, within the "at most" rules of host-load/v1.ts. */
const hostLoad = fc
  .record({
    executorId: str,
    sentAt: u64,
    cpuCores: u32,
    cpuBusyPermille: fc.integer({ min: 0, max: 1000 }),
    memTotalBytes: u64,
    memAvailable: u64,
    nicCapacityBytesPerSecond: u64,
    nicBytesPerSecond: u64,
    senderSlots: u32,
    free: u32,
  })
  .map(({ memAvailable, free, ...r }) => ({
    kind: 'host.load' as const,
    report: {
      ...r,
      memAvailableBytes: Math.min(memAvailable, r.memTotalBytes),
      senderSlotsFree: Math.min(free, r.senderSlots),
    },
  }));

/** Every kind, with every field anywhere in the range its wire type carries. */
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ kind: fc.constant('task.submitted' as const), taskId: u64 }),
  fc.record({
    kind: fc.constant('task.command' as const),
    taskId: u64,
    command: fc.constantFrom('cancel' as const, 'pause' as const, 'resume' as const),
  }),
  fc.record({
    kind: fc.constant('preprocess.request' as const),
    taskId: u64,
    epoch: u32,
    listId: str,
    accountId: str,
    contentCrc: u32,
    speed: u32,
  }),
  fc.record({
    kind: fc.constant('preprocess.result' as const),
    ok: fc.constant(true as const),
    taskId: u64,
    epoch: u32,
    filteredListId: str,
    total: u64,
    kept: u64,
    removed,
    units: fc.array(fc.record({ start: u64, end: u64, executorId: str }), { maxLength: 5 }),
  }),
  fc.record({
    kind: fc.constant('preprocess.result' as const),
    ok: fc.constant(false as const),
    taskId: u64,
    epoch: u32,
    errorCode: str,
    message: str,
  }),
  fc.record({
    kind: fc.constant('unit.run' as const),
    taskId: u64,
    epoch: u32,
    unitNo: u32,
    filteredListId: str,
    start: u64,
    end: u64,
    from: u64,
    executorId: str,
    realtime: fc.boolean(),
  }),
  fc.record(
    { kind: fc.constant('task.halt' as const), taskId: u64, epoch: u32, closesEpoch: fc.constant(true as const) },
    { requiredKeys: ['kind', 'taskId', 'epoch'] },
  ),
  fc.record({
    kind: fc.constant('unit.batch' as const),
    taskId: u64,
    epoch: u32,
    unitNo: u32,
    offset: u64,
    last: fc.boolean(),
    uins: uins(0),
  }),
  fc.record({
    kind: fc.constant('unit.progress' as const),
    taskId: u64,
    epoch: u32,
    unitNo: u32,
    from: u64,
    to: u64,
    delivered: u32,
    offline: u32,
    done: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('user.logins' as const), uins: uins(1) }),
  fc.record({ kind: fc.constant('apta' as const), message: aptaMessage }),
  hostLoad,
  fc.record({ kind: fc.constant('unit.replan' as const), taskId: u64, epoch: u32, unitNo: u32, from: str, to: str }),
  fc.record({
    kind: fc.constant('channel.throttled' as const),
    executorId: str,
    channel: str,
    holdMs: u32,
    detail: str,
  }),
  fc.record({ kind: fc.constant('channel.demand' as const), executorId: str, channel: str, demand: u32, rate: u32 }),
);

/** A copy of the frame at an odd byte offset of its own buffer (as a frame inside a larger receive buffer may be). */
function unaligned(frame: Uint8Array): Buffer {
  const home = Buffer.alloc(frame.length + 1);
  home.set(frame, 1);
  return home.subarray(1);
}

/** decodeMessage, with anything thrown but a FrameError escaping to fail the property. */
function tryDecode(frame: Buffer): { ok: true; msg: Message } | { ok: false; error: FrameError } {
  try {
    return { ok: true, msg: decodeMessage(frame) };
  } catch (error) {
    if (error instanceof FrameError) return { ok: false, error };
    throw error;
  }
}

/** The bytes version 1 of a kind appended later: a v1 frame without them is the older shape, read with their default. */
const APPENDED_TO_V1: Partial<Record<MessageKind, string>> = { 'unit.run': '00', 'preprocess.request': '00000000' };

/** The length at which a version 1 frame of `msg` cut short is itself a valid version 1 frame (checked canonical by the caller). */
function shorterV1Length(msg: Message, frame: Buffer): number | undefined {
  const appended = APPENDED_TO_V1[msg.kind];
  if (appended !== undefined) return frame.length - appended.length / 2;
  // task.halt's closesEpoch byte, there only when true: without it, the halt that does not close its epoch.
  return msg.kind === 'task.halt' && msg.closesEpoch === true ? frame.length - 1 : undefined;
}

/** `msg` as a frame of `version` carries it: channel.demand's rate came with version 2. */
function asOfVersion(msg: Message, version: number): Message {
  if (msg.kind !== 'channel.demand' || version >= 2) return msg;
  const { rate: _rate, ...v1 } = msg;
  return v1;
}

/** The FrameError code decoding the frame throws, or 'decoded'. */
function frameErrorCode(frame: Buffer): string {
  const outcome = tryDecode(frame);
  return outcome.ok ? 'decoded' : outcome.error.code;
}

/** A decoder that accepts a frame must have read exactly the frame its result encodes to, at the frame's version. */
function expectCanonical(frame: Buffer): void {
  const outcome = tryDecode(frame);
  if (!outcome.ok) return;
  const again = encodeMessageAs(outcome.msg, frame[1]!).toString('hex');
  const appended = frame[1] === 1 ? APPENDED_TO_V1[outcome.msg.kind] : undefined;
  if (appended !== undefined && again === frame.toString('hex') + appended) return;
  expect(again).toBe(frame.toString('hex'));
}

const kinds = Object.keys(KIND_IDS) as MessageKind[];
/** Every [kind byte, version byte] this build reads. */
const readable = kinds.flatMap((kind) =>
  WIRE_VERSIONS[kind].accepts.map((version) => [KIND_IDS[kind], version] as const),
);

describe('wire messages, fuzzed', () => {
  it('round-trips every kind from arbitrary valid messages, aligned or not', () => {
    fc.assert(
      fc.property(messageArb, (msg) => {
        const frame = encodeMessage(msg);
        expect(frame[0]).toBe(KIND_IDS[msg.kind]);
        expect(decodeMessage(Buffer.from(frame))).toEqual(msg);
        expect(decodeMessage(unaligned(frame))).toEqual(msg);
      }),
      settings,
    );
  });

  it('throws only FrameError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => expectCanonical(Buffer.from(bytes))),
      settings,
    );
  });

  it('throws only FrameError on a known kind and version over an arbitrary body', () => {
    fc.assert(
      fc.property(fc.constantFrom(...readable), fc.uint8Array({ maxLength: 120 }), ([kind, version], body) => {
        expectCanonical(Buffer.concat([Buffer.from([kind, version]), body]));
      }),
      settings,
    );
  });

  it('throws only FrameError on valid frames with bytes overwritten', () => {
    const edits = fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(messageArb, edits, (msg, changes) => {
        const frame = Buffer.from(encodeMessage(msg));
        for (const [at, value] of changes) frame[at % frame.length] = value;
        expectCanonical(frame);
      }),
      settings,
    );
  });

  it('reports every truncation of a valid frame as FRAME_MALFORMED', () => {
    fc.assert(
      fc.property(messageArb, fc.nat(), (msg, at) => {
        const frame = encodeMessage(msg);
        const length = at % frame.length;
        const outcome = tryDecode(Buffer.from(frame.subarray(0, length)));
        // No exception: the versions this build sends have no optional field.
        expect(outcome.ok ? 'decoded' : outcome.error.code).toBe('FRAME_MALFORMED');
      }),
      settings,
    );
  });

  it('reports bytes after a valid frame as FRAME_MALFORMED', () => {
    fc.assert(
      fc.property(messageArb, fc.uint8Array({ minLength: 1, maxLength: 16 }), (msg, extra) => {
        const outcome = tryDecode(Buffer.concat([encodeMessage(msg), extra]));
        expect(outcome.ok ? 'decoded' : outcome.error.code).toBe('FRAME_MALFORMED');
      }),
      settings,
    );
  });

  it('reports every version a kind does not read as FRAME_UNSUPPORTED_VERSION, naming it', () => {
    fc.assert(
      fc.property(messageArb, fc.integer({ min: 0, max: 255 }), (msg, version) => {
        fc.pre(!WIRE_VERSIONS[msg.kind].accepts.includes(version));
        const frame = Buffer.from(encodeMessage(msg));
        frame[1] = version;
        const outcome = tryDecode(frame);
        expect(outcome.ok ? 'decoded' : [outcome.error.code, outcome.error.details.version]).toEqual([
          'FRAME_UNSUPPORTED_VERSION',
          version,
        ]);
      }),
      settings,
    );
  });

  it('round-trips every kind at every older version it still reads, and reports its truncations as FRAME_MALFORMED (or its older shape)', () => {
    fc.assert(
      fc.property(messageArb, fc.nat(), (msg, at) => {
        for (const version of WIRE_VERSIONS[msg.kind].accepts) {
          const frame = encodeMessageAs(msg, version);
          expect([frame[1], decodeMessage(frame)]).toEqual([version, asOfVersion(msg, version)]);
          const cut = Buffer.from(frame.subarray(0, at % frame.length));
          expectCanonical(cut);
          if (version !== 1 || cut.length !== shorterV1Length(msg, frame))
            expect(frameErrorCode(cut)).toBe('FRAME_MALFORMED');
        }
      }),
      settings,
    );
  });
});
