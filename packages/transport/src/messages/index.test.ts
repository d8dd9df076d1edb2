import { FrameError } from '@herald/core';
import { decodeMessage, encodeMessage } from './index';
import { frameErrorCode, hex } from './frame.test-util';
import type { Message } from './types';

const samples: Message[] = [
  { kind: 'task.submitted', taskId: 1 },
  { kind: 'task.command', taskId: 2, command: 'resume' },
  { kind: 'preprocess.request', taskId: 3, epoch: 1, listId: 'list', accountId: 'acct', contentCrc: 123, speed: 0 },
  {
    kind: 'preprocess.result',
    ok: true,
    taskId: 4,
    epoch: 1,
    filteredListId: 'f',
    total: 3,
    kept: 2,
    removed: { duplicate: 1 },
    units: [{ start: 0, end: 2, executorId: 'e' }],
  },
  { kind: 'preprocess.result', ok: false, taskId: 4, epoch: 1, errorCode: 'LIST_EMPTY', message: 'empty' },
  {
    kind: 'unit.run',
    taskId: 5,
    epoch: 1,
    unitNo: 0,
    filteredListId: 'f',
    start: 0,
    end: 2,
    from: 1,
    executorId: 'e',
    realtime: false,
  },
  { kind: 'task.halt', taskId: 6, epoch: 2 },
  { kind: 'unit.batch', taskId: 7, epoch: 1, unitNo: 0, offset: 0, last: false, uins: new Uint32Array([5, 6]) },
  { kind: 'unit.progress', taskId: 8, epoch: 1, unitNo: 0, from: 0, to: 2, delivered: 1, offline: 1, done: true },
  { kind: 'user.logins', uins: Uint32Array.of(9, 10) },
  {
    kind: 'apta',
    message: {
      kind: 'lsr.request',
      requestId: 3,
      from: 's-1',
      incarnation: 1,
      seq: 2,
      state: 'ONLINE',
      takesWork: true,
      table: [{ id: 'i-1', incarnation: 4, seq: 5, state: 'WORKING', takesWork: false }],
    },
  },
  {
    kind: 'host.load',
    report: {
      executorId: 'e',
      sentAt: 1,
      cpuCores: 2,
      cpuBusyPermille: 3,
      memTotalBytes: 5,
      memAvailableBytes: 4,
      nicCapacityBytesPerSecond: 7,
      nicBytesPerSecond: 6,
      senderSlots: 4,
      senderSlotsFree: 1,
    },
  },
  { kind: 'unit.replan', taskId: 12, epoch: 1, unitNo: 3, from: 'e1', to: 'e2' },
  { kind: 'channel.throttled', executorId: 'e1', channel: 'webhook', holdMs: 2000, detail: '429' },
  { kind: 'channel.demand', executorId: 'e1', channel: 'webhook', demand: 1500, rate: 9500 },
];
const KIND_IDS = [1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
/** The version each sample is sent as: 2 for the kinds that gained a field (preprocess.result: canary sample, local-time groups; channel.demand: rate). */
const VERSIONS = [1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 2];

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

describe('encodeMessage / decodeMessage', () => {
  it('dispatches every kind on byte 0 and round-trips it', () => {
    samples.forEach((msg, i) => {
      const frame = encodeMessage(msg);
      expect([frame[0], frame[1]]).toEqual([KIND_IDS[i], VERSIONS[i]]);
      expect(decodeMessage(frame)).toEqual(msg);
    });
  });

  it('tells typed arrays apart when comparing (guards the round-trip checks)', () => {
    const batch = decodeMessage(encodeMessage(samples[7]!));
    expect(batch).not.toEqual({ ...samples[7]!, uins: new Uint32Array([5, 7]) });
  });

  it('rejects frames too short for a header', () => {
    expect(frameErrorCode(() => decodeMessage(Buffer.alloc(0)))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decodeMessage(hex('01')))).toBe('FRAME_MALFORMED');
  });

  it('rejects unknown kinds', () => {
    for (const kind of ['00', '0f', '63', 'ff']) {
      expect(frameErrorCode(() => decodeMessage(hex(`${kind} 01 2a00000000000000`)))).toBe('FRAME_UNKNOWN_KIND');
    }
  });

  it('rejects versions other than 1', () => {
    expect(frameErrorCode(() => decodeMessage(hex('01 02 2a00000000000000')))).toBe('FRAME_UNSUPPORTED_VERSION');
    expect(frameErrorCode(() => decodeMessage(hex('07 00')))).toBe('FRAME_UNSUPPORTED_VERSION');
  });

  it('rejects truncated bodies and trailing bytes for every kind', () => {
    for (const msg of samples) {
      const frame = encodeMessage(msg);
      expect(frameErrorCode(() => decodeMessage(frame.subarray(0, frame.length - 1)))).toBe('FRAME_MALFORMED');
      expect(frameErrorCode(() => decodeMessage(Buffer.concat([frame, hex('00')])))).toBe('FRAME_MALFORMED');
    }
  });

  it('refuses to encode an unknown kind', () => {
    expect(frameErrorCode(() => encodeMessage({ kind: 'nope' } as unknown as Message))).toBe('FRAME_UNKNOWN_KIND');
  });

  it('throws only FrameError on 2000 random frames', () => {
    const next = random(0x5eed);
    const byte = () => Math.floor(next() * 256);
    const codes = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const frame = Buffer.from(Array.from({ length: Math.floor(next() * 80) }, byte));
      if (i % 2 === 0 && frame.length >= 2) [frame[0], frame[1]] = [1 + (i % 8), 1]; // half reach a body decoder
      try {
        decodeMessage(frame);
      } catch (error) {
        expect(error).toBeInstanceOf(FrameError);
        codes.add((error as FrameError).code);
      }
    }
    expect([...codes].sort()).toEqual(['FRAME_MALFORMED', 'FRAME_UNKNOWN_KIND', 'FRAME_UNSUPPORTED_VERSION']);
  });

  it('throws only FrameError when single bytes of valid frames are corrupted', () => {
    const next = random(42);
    for (const msg of samples) {
      const frame = encodeMessage(msg);
      for (let i = 0; i < 200; i++) {
        const corrupt = Buffer.from(frame);
        corrupt[Math.floor(next() * corrupt.length)] = Math.floor(next() * 256);
        try {
          decodeMessage(corrupt);
        } catch (error) {
          expect(error).toBeInstanceOf(FrameError);
        }
      }
    }
  });
});
