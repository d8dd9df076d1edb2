import { ErrorCodes } from '@herald/core';
import type { ConsumedEvent } from '@herald/core/ports';
import { eventBusConformance, makeTempDir, rejectsWithCode, waitFor, type TempDir } from '@herald/testing';
import { LevelEventLog } from './level-event-log';

eventBusConformance('LevelEventLog', async () => {
  const dir = await makeTempDir('herald-events-level-');
  return { store: await LevelEventLog.open(dir.path), cleanup: dir.remove };
});

eventBusConformance('LevelEventLog (batchSize 7)', async () => {
  const dir = await makeTempDir('herald-events-level-');
  return { store: await LevelEventLog.open(dir.path, { batchSize: 7 }), cleanup: dir.remove };
});

describe('LevelEventLog', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-events-level-');
  });
  afterEach(() => dir.remove());

  const ev = (key: string, seq: number) => ({ key, value: { seq }, timestamp: 1000 + seq });
  const collect = (into: ConsumedEvent[]) => async (events: ConsumedEvent[]) => void into.push(...events);

  it('numbers each topic from 0, and keeps events and group positions across close and reopen', async () => {
    const first = await LevelEventLog.open(dir.path);
    await first.publish('a', [ev('k', 0), ev('k', 1)]);
    await first.publish('b', [ev('k', 0)]);
    await first.publish('a', [ev('k', 2)]);
    const seen: ConsumedEvent[] = [];
    const sub = await first.subscribe('a', 'g', collect(seen), { fromBeginning: true });
    await waitFor(() => seen.length === 3);
    expect(seen.map((e) => e.position)).toEqual([
      '00000000000000000000',
      '00000000000000000001',
      '00000000000000000002',
    ]);
    await sub.close();
    await first.close();

    const second = await LevelEventLog.open(dir.path);
    await second.publish('a', [ev('k', 3)]);
    const again: ConsumedEvent[] = [];
    await second.subscribe('a', 'g', collect(again), { fromBeginning: true });
    const other: ConsumedEvent[] = [];
    await second.subscribe('b', 'g', collect(other), { fromBeginning: true });
    await waitFor(() => again.length === 1 && other.length === 1);
    expect(again.map((e) => [e.position, e.value])).toEqual([['00000000000000000003', { seq: 3 }]]);
    expect(other.map((e) => e.position)).toEqual(['00000000000000000000']);
    await second.close();
  });

  it('hands batches of one group to its members in turn, one batch at a time, keeping per-key order', async () => {
    const bus = await LevelEventLog.open(dir.path, { batchSize: 10 });
    const byMember: ConsumedEvent[][] = [[], [], []];
    let inFlight = 0;
    let maxInFlight = 0;
    const handler = (i: number) => async (events: ConsumedEvent[]) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      byMember[i]!.push(...events);
      inFlight--;
    };
    const events = Array.from({ length: 200 }, (_, i) => ev(`k${i % 7}`, i));
    await bus.publish('t', events);
    for (let i = 0; i < 3; i++) await bus.subscribe('t', 'g', handler(i), { fromBeginning: true });
    await waitFor(() => byMember.flat().length >= 200);
    expect(maxInFlight).toBe(1);
    for (const member of byMember) expect(member.length).toBeGreaterThan(0);
    const all = byMember.flat().sort((a, b) => (a.position < b.position ? -1 : 1));
    expect(all.map((e) => (e.value as { seq: number }).seq)).toEqual(events.map((_, i) => i));
    await bus.close();
  });

  it('starts a new group without fromBeginning at the end, and commits that start at once', async () => {
    const bus = await LevelEventLog.open(dir.path);
    await bus.publish('t', [ev('k', 0)]);
    const sub = await bus.subscribe('t', 'g', async () => undefined);
    await sub.close();
    await bus.publish('t', [ev('k', 1)]);
    const seen: ConsumedEvent[] = [];
    await bus.subscribe('t', 'g', collect(seen), { fromBeginning: true });
    await waitFor(() => seen.length === 1);
    expect(seen[0]!.value).toEqual({ seq: 1 });
    await bus.close();
  });

  it('closes its subscriptions on close: a handler in flight finishes and its batch counts as consumed', async () => {
    const bus = await LevelEventLog.open(dir.path);
    await bus.publish('t', [ev('k', 0)]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    await bus.subscribe(
      't',
      'g',
      async () => {
        started = true;
        await gate;
      },
      { fromBeginning: true },
    );
    await waitFor(() => started);
    const closing = bus.close();
    release();
    await closing;
    const reopened = await LevelEventLog.open(dir.path);
    await reopened.publish('t', [ev('k', 1)]);
    const seen: ConsumedEvent[] = [];
    await reopened.subscribe('t', 'g', collect(seen), { fromBeginning: true });
    await waitFor(() => seen.length === 1);
    expect(seen[0]!.value).toEqual({ seq: 1 });
    await reopened.close();
  });

  it('refuses a second open of the same directory and a bad batchSize', async () => {
    const bus = await LevelEventLog.open(dir.path);
    expect((await rejectsWithCode(LevelEventLog.open(dir.path), ErrorCodes.UNAVAILABLE)).retriable).toBe(true);
    await bus.close();
    for (const batchSize of [0, -1, 1.5])
      await rejectsWithCode(LevelEventLog.open(dir.path, { batchSize }), ErrorCodes.VALIDATION_FAILED);
  });
});
