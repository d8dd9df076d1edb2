import { join } from 'node:path';
import { noopLogger, TOPICS, type Counter, type Meter } from '@herald/core/ports';
import { LevelEventLog } from '@herald/events-level';
import { LevelFollowerStore } from '@herald/store-level';
import { makeTempDir, readAudience, waitFor, type TempDir } from '@herald/testing';
import { applyFollowEvents, publishFollowChanges } from './follow-events';

/** A meter that keeps its counters' totals. */
function countingMeter(): Meter & { totals: Map<string, number> } {
  const totals = new Map<string, number>();
  const counter = (name: string): Counter => ({
    inc: (_labels, value = 1) => void totals.set(name, (totals.get(name) ?? 0) + value),
  });
  return { totals, counter, gauge: () => ({ set() {}, inc() {}, dec() {} }) } as unknown as Meter & {
    totals: Map<string, number>;
  };
}

describe('applyFollowEvents', () => {
  let dir: TempDir;
  let bus: LevelEventLog;
  let store: LevelFollowerStore;
  beforeEach(async () => {
    dir = await makeTempDir('herald-follow-events-');
    bus = await LevelEventLog.open(join(dir.path, 'events'));
    store = await LevelFollowerStore.open(join(dir.path, 'followers'));
  });
  afterEach(async () => {
    await bus.close();
    await store.close();
    await dir.remove();
  });

  it('applies the topic in order per key, skips and counts values that are not follow changes, and a replay changes nothing', async () => {
    const meter = countingMeter();
    await publishFollowChanges(bus, [
      { accountId: 'acme', uin: 1, following: true, at: 1 },
      { accountId: 'acme', uin: 1, following: false, at: 2 },
      { accountId: 'acme', uin: 2, following: true, at: 1 },
    ]);
    await bus.publish(TOPICS.follows, [
      { key: '3', value: { accountId: 'acme', uin: 3, following: 'yes', at: 1 }, timestamp: 1 },
      { key: '4', value: 'garbage', timestamp: 1 },
      { key: '5', value: { accountId: 'acme', uin: 5, following: true, at: 1 }, timestamp: 1 },
    ]);
    const subscription = await applyFollowEvents({ bus, store, logger: noopLogger, meter, retryDelayMs: 10 });
    await waitFor(async () => (await readAudience(store.followers('acme'))).uins.join() === '2,5', {
      message: 'the valid changes applied',
    });
    expect(meter.totals.get('herald_follow_events_invalid_total')).toBe(2);
    await subscription.close();
    const applied = meter.totals.get('herald_follow_events_applied_total');
    const stale = meter.totals.get('herald_follow_events_stale_total') ?? 0;

    // A new consumer group replays the topic from the beginning: every change is stale by then.
    const replay = await applyFollowEvents({
      bus,
      store,
      group: 'replay',
      logger: noopLogger,
      meter,
      retryDelayMs: 10,
    });
    await waitFor(() => (meter.totals.get('herald_follow_events_stale_total') ?? 0) === stale + 4, {
      message: 'the replay handled',
    });
    await replay.close();
    expect(meter.totals.get('herald_follow_events_applied_total')).toBe(applied);
    expect((await readAudience(store.followers('acme'))).uins).toEqual([2, 5]);
  });

  it('refuses to publish a bad change', async () => {
    await expect(
      publishFollowChanges(bus, [{ accountId: 'acme', uin: -1, following: true, at: 1 }]),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
