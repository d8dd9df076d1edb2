import type { Admin } from 'kafkajs';
import { SkipDetector } from './skip-detector';

/**
 * The detector's rules against an admin client that answers from a table
 * (committed offsets per partition, log starts): the real client against the
 * mock broker is in packages/production/test/kafka-retention.test.ts.
 */
function admin(committed: Record<number, string>, low: Record<number, string> = {}) {
  const state = { committed, low, offsetReads: 0 };
  const client = {
    fetchOffsets: async () => {
      state.offsetReads++;
      return [
        {
          topic: 't',
          partitions: Object.entries(state.committed).map(([p, offset]) => ({ partition: Number(p), offset })),
        },
      ];
    },
    fetchTopicOffsets: async () =>
      Object.entries(state.low).map(([p, low]) => ({ partition: Number(p), low, high: '0', offset: '0' })),
  } as unknown as Admin;
  return { client, state };
}

describe('SkipDetector', () => {
  it('on a delete topic: a batch past the committed offset, then past the last batch, is a hole', async () => {
    const { client } = admin({ 0: '100', 1: '-1' });
    const detector = new SkipDetector(client, 't', 'g', false);
    await detector.load();
    expect(await detector.check(0, '100')).toBeUndefined();
    expect(await detector.check(0, '250')).toEqual({ partition: 0, from: 100n, to: 250n });
    detector.consumed(0, '299');
    expect(await detector.check(0, '300')).toBeUndefined();
    expect(await detector.check(0, '299')).toBeUndefined(); // fetched again: not a hole
    expect(await detector.check(0, '310')).toEqual({ partition: 0, from: 300n, to: 310n });
    // No commit yet (a new group): nothing to compare with.
    expect(await detector.check(1, '5000')).toBeUndefined();
  });

  it('on a compacted topic: a gap is a hole only below the log start', async () => {
    const { client, state } = admin({ 0: '100' }, { 0: '0' });
    const detector = new SkipDetector(client, 't', 'g', true);
    await detector.load();
    expect(await detector.check(0, '180')).toBeUndefined(); // compaction removed 100..179
    state.low[0] = '150';
    expect(await detector.check(0, '180')).toEqual({ partition: 0, from: 100n, to: 180n });
  });

  it('keeps the offset read before kafkajs replaced it with its reset marker, and reports a hole of unknown start when only the marker is known', async () => {
    const { client, state } = admin({ 0: '100', 1: '-2' });
    const detector = new SkipDetector(client, 't', 'g', false);
    await detector.load();
    state.committed[0] = '-2'; // kafkajs reset partition 0 before the rejoin's read
    detector.rejoined();
    expect(await detector.check(0, '900')).toEqual({ partition: 0, from: 100n, to: 900n });
    expect(await detector.check(1, '40')).toEqual({ partition: 1, to: 40n });
    expect(state.offsetReads).toBe(2);
  });
});
