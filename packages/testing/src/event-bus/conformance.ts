import { randomBytes } from 'node:crypto';
import { ErrorCodes } from '@herald/core';
import type { BusEvent, ConsumedEvent, EventBus, Subscription } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';
import { HOSTILE_STRINGS } from '../task-store/data';
import { waitFor } from '../wait-for';

/** Long enough for a Kafka consumer group to join (the librdkafka mock waits 3 s before the first one). */
const WAIT = { timeoutMs: 40_000, intervalMs: 20 };
const T0 = 1_700_000_000_000;

let counter = 0;
/** A topic or group name no other test (or earlier run on a shared broker) uses; Kafka's legal characters only. */
function unique(kind: string): string {
  return `conf.${kind}.${Date.now().toString(36)}.${(counter++).toString(36)}.${randomBytes(3).toString('hex')}`;
}

/** Events numbered per key: value { key, seq }, so order and completeness can be checked per key. */
function numbered(keys: readonly string[], perKey: number, firstSeq = 0): BusEvent[] {
  const out: BusEvent[] = [];
  for (let seq = firstSeq; seq < firstSeq + perKey; seq++) {
    for (const key of keys) out.push({ key, value: { key, seq }, timestamp: T0 + seq });
  }
  return out;
}

const keysOf = (n: number, tag = 'k') => Array.from({ length: n }, (_, i) => `${tag}${i}`);
const seqOf = (event: BusEvent) => (event.value as { seq: number }).seq;
const idOf = (event: BusEvent) => `${event.key}#${seqOf(event)}`;

/** What a subscription's handler saw, call by call. */
class Recorder {
  readonly calls: ConsumedEvent[][] = [];
  readonly events: ConsumedEvent[] = [];
  failNext = 0;
  readonly failed: ConsumedEvent[][] = [];

  readonly handler = async (events: ConsumedEvent[]): Promise<void> => {
    this.calls.push(events);
    if (this.failNext > 0) {
      this.failNext--;
      this.failed.push(events);
      throw new Error('conformance: handler failure on purpose');
    }
    this.events.push(...events);
  };

  has(count: number): boolean {
    return this.events.length >= count;
  }

  /** Handled events, grouped by key, as sequence numbers in the order they were handled. */
  byKey(): Map<string, number[]> {
    const map = new Map<string, number[]>();
    for (const event of this.events) {
      const list = map.get(event.key) ?? [];
      list.push(seqOf(event));
      map.set(event.key, list);
    }
    return map;
  }
}

const sortIds = (events: readonly BusEvent[]) => events.map(idOf).sort();
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * The EventBus contract as tests. Every adapter's test file calls this with a
 * factory that opens (or connects) a bus; each test gets its own and uses
 * topic and group names of its own, so adapters on a shared broker work too.
 * Waits are deadline-based (`waitFor`), never fixed sleeps; negative checks
 * ("nothing else arrived") use a second group as a witness.
 *
 * @example
 *   eventBusConformance('LevelEventLog', async () => {
 *     const dir = await makeTempDir('herald-events-');
 *     return { store: await LevelEventLog.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function eventBusConformance(name: string, open: StoreFactory<EventBus>): void {
  describe(`EventBus conformance: ${name}`, () => {
    const bus = useFreshStore(open);
    const subscriptions: Subscription[] = [];
    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.close().catch(() => undefined)));
    });

    async function subscribe(
      topic: string,
      group: string,
      recorder: Recorder,
      fromBeginning = true,
    ): Promise<Subscription> {
      const subscription = await bus().subscribe(topic, group, recorder.handler, { fromBeginning, retryDelayMs: 10 });
      subscriptions.push(subscription);
      return subscription;
    }

    it('delivers everything published before a fromBeginning subscription, with topic and position', async () => {
      const topic = unique('t');
      const published = numbered(keysOf(5), 10);
      await bus().publish(topic, published.slice(0, 20));
      await bus().publish(topic, published.slice(20));
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await waitFor(() => seen.has(published.length), { ...WAIT, message: `${published.length} events` });
      expect(sortIds(seen.events)).toEqual(sortIds(published));
      const byId = new Map(published.map((e) => [idOf(e), e]));
      for (const event of seen.events) {
        expect(event.topic).toBe(topic);
        expect(typeof event.position).toBe('string');
        const { key, value, timestamp } = byId.get(idOf(event))!;
        expect({ key: event.key, value: event.value, timestamp: event.timestamp }).toEqual({ key, value, timestamp });
      }
    });

    it('keeps per-key order across many keys and batches, published before and after subscribing', async () => {
      const topic = unique('t');
      const keys = keysOf(25);
      const seen = new Recorder();
      const all = numbered(keys, 40);
      const half = all.length / 2;
      for (let i = 0; i < half; i += 50) await bus().publish(topic, all.slice(i, i + 50));
      await subscribe(topic, unique('g'), seen);
      for (let i = half; i < all.length; i += 50) await bus().publish(topic, all.slice(i, i + 50));
      await waitFor(() => seen.has(all.length), { ...WAIT, message: `${all.length} events` });
      expect(seen.events).toHaveLength(all.length);
      const byKey = seen.byKey();
      expect([...byKey.keys()].sort()).toEqual([...keys].sort());
      for (const key of keys) expect(byKey.get(key)).toEqual(range(0, 40));
      // Positions of one key are strings that increase along the key's order.
      for (const key of keys) {
        const positions = seen.events.filter((e) => e.key === key).map((e) => e.position);
        for (let i = 1; i < positions.length; i++) expect(positions[i]! > positions[i - 1]!).toBe(true);
      }
    });

    it('gives every group every event', async () => {
      const topic = unique('t');
      const published = numbered(keysOf(6), 15);
      const first = new Recorder();
      const second = new Recorder();
      await Promise.all([subscribe(topic, unique('g'), first), subscribe(topic, unique('g'), second)]);
      await bus().publish(topic, published.slice(0, 45));
      await bus().publish(topic, published.slice(45));
      await waitFor(() => first.has(published.length) && second.has(published.length), {
        ...WAIT,
        message: 'both groups to have everything',
      });
      expect(sortIds(first.events)).toEqual(sortIds(published));
      expect(sortIds(second.events)).toEqual(sortIds(published));
    });

    it('resumes a group that re-subscribes right after its last handled event: nothing again, nothing lost', async () => {
      const topic = unique('t');
      const group = unique('g');
      const keys = keysOf(4);
      const before = numbered(keys, 10);
      const after = numbered(keys, 5, 10);
      await bus().publish(topic, before);
      const first = new Recorder();
      const subscription = await subscribe(topic, group, first);
      await waitFor(() => first.has(before.length), { ...WAIT, message: 'the first batch' });
      await subscription.close();
      await bus().publish(topic, after);
      const second = new Recorder();
      await subscribe(topic, group, second);
      await waitFor(() => second.has(after.length), {
        ...WAIT,
        message: 'the events published while the group was away',
      });
      expect(sortIds(first.events)).toEqual(sortIds(before));
      expect(sortIds(second.events)).toEqual(sortIds(after));
      for (const seqs of second.byKey().values()) expect(seqs).toEqual(range(10, 15));
    });

    it('stops calling the handler once its subscription is closed (another group as witness)', async () => {
      const topic = unique('t');
      const closed = new Recorder();
      const witness = new Recorder();
      const subscription = await subscribe(topic, unique('g'), closed);
      await subscribe(topic, unique('g'), witness);
      await bus().publish(topic, numbered(['a'], 3));
      await waitFor(() => closed.has(3) && witness.has(3), { ...WAIT, message: 'the first events' });
      await subscription.close();
      await subscription.close();
      await bus().publish(topic, numbered(['a'], 3, 3));
      await waitFor(() => witness.has(6), { ...WAIT, message: 'the witness group' });
      expect(closed.events.map(seqOf)).toEqual([0, 1, 2]);
    });

    it('redelivers a batch whose handler threw, and skips nothing after it (at least once)', async () => {
      const topic = unique('t');
      const keys = keysOf(3);
      const first = numbered(keys, 5);
      const later = numbered(keys, 5, 5);
      await bus().publish(topic, first);
      const seen = new Recorder();
      seen.failNext = 3;
      await subscribe(topic, unique('g'), seen);
      await waitFor(() => seen.has(first.length), { ...WAIT, message: 'the events after three failures' });
      await bus().publish(topic, later);
      await waitFor(() => seen.has(first.length + later.length), { ...WAIT, message: 'the later events' });
      expect(seen.failed).toHaveLength(3);
      // Each failed call's events come back in the very next call.
      for (let i = 0; i < seen.calls.length - 1; i++) {
        if (!seen.failed.includes(seen.calls[i]!)) continue;
        const next = new Set(seen.calls[i + 1]!.map(idOf));
        for (const event of seen.calls[i]!) expect(next.has(idOf(event))).toBe(true);
      }
      expect(sortIds(seen.events)).toEqual(sortIds([...first, ...later]));
      for (const key of keys) expect(seen.byKey().get(key)).toEqual(range(0, 10));
    });

    it('round-trips JSON values and keys: unicode, nested objects, arrays, numbers, null', async () => {
      const topic = unique('t');
      const values: unknown[] = [
        HOSTILE_STRINGS.unicode,
        HOSTILE_STRINGS.control,
        {
          nested: { deeper: { list: [1, 'two', { three: 3 }, [4]], emoji: '🚀', empty: {} } },
          quotes: HOSTILE_STRINGS.quotes,
        },
        [1.5, -0.25, 1e21, 2 ** 53 - 1, -(2 ** 31), 0, true, false, null],
        'x'.repeat(50_000),
        null,
        42,
        '',
      ];
      const keys = [HOSTILE_STRINGS.unicode, HOSTILE_STRINGS.sql, '12345', 'ключ'];
      const published: BusEvent[] = values.map((value, i) => ({
        key: keys[i % keys.length]!,
        value: { i, value },
        timestamp: T0 + i,
      }));
      await bus().publish(topic, published);
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await waitFor(() => seen.has(published.length), { ...WAIT, message: 'every value' });
      const got = [...seen.events].sort((a, b) => (a.value as { i: number }).i - (b.value as { i: number }).i);
      expect(got.map(({ key, value, timestamp }) => ({ key, value, timestamp }))).toEqual(published);
    });

    it('keeps each event timestamp as given, not the publish time', async () => {
      const topic = unique('t');
      const stamps = [1, 86_400_000, 1_262_304_000_000, T0 + 123, 4_102_444_800_000];
      const published = stamps.map((timestamp, seq) => ({ key: `s${seq % 2}`, value: { seq }, timestamp }));
      await bus().publish(topic, published);
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await waitFor(() => seen.has(stamps.length), { ...WAIT, message: 'every event' });
      expect(seen.events.map((e) => [seqOf(e), e.timestamp]).sort((a, b) => a[0]! - b[0]!)).toEqual(
        stamps.map((t, seq) => [seq, t]),
      );
    });

    it('treats publishing an empty array as nothing to do', async () => {
      const topic = unique('t');
      await bus().publish(topic, []);
      await bus().publish(topic, [{ key: 'k', value: { seq: 0 }, timestamp: T0 }]);
      await bus().publish(topic, []);
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await bus().publish(topic, [{ key: 'k', value: { seq: 1 }, timestamp: T0 }]);
      await waitFor(() => seen.has(2), { ...WAIT, message: 'both events' });
      expect(seen.events.map(seqOf)).toEqual([0, 1]);
    });

    it('starts a new group without fromBeginning at the end of the topic', async () => {
      const topic = unique('t');
      await bus().publish(topic, numbered(['old'], 5));
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen, false);
      // Publish markers until one arrives (the group's start point is fixed a moment after subscribe on some adapters).
      let marker = 0;
      await waitFor(
        async () => {
          if (seen.events.some((e) => e.key === 'marker')) return true;
          await bus().publish(topic, [{ key: 'marker', value: { seq: marker++ }, timestamp: T0 }]);
          return false;
        },
        { ...WAIT, intervalMs: 200, message: 'a marker published after subscribing' },
      );
      expect(seen.events.filter((e) => e.key === 'old')).toEqual([]);
    });

    it('rejects an event whose value is not JSON, or a bad key or timestamp, with VALIDATION_FAILED and publishes nothing of that call', async () => {
      const topic = unique('t');
      const good: BusEvent = { key: 'k', value: { seq: 0 }, timestamp: T0 };
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const bad: BusEvent[] = [
        { key: 'k', value: undefined, timestamp: T0 },
        { key: 'k', value: 10n, timestamp: T0 },
        { key: 'k', value: cyclic, timestamp: T0 },
        { key: 'k', value: () => 1, timestamp: T0 },
        { key: 7 as unknown as string, value: 1, timestamp: T0 },
        { key: 'k', value: 1, timestamp: Number.NaN },
        { key: 'k', value: 1, timestamp: -5 },
        { key: 'k', value: 1, timestamp: 1.5 },
      ];
      for (const event of bad) await rejectsWithCode(bus().publish(topic, [good, event]), ErrorCodes.VALIDATION_FAILED);
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await bus().publish(topic, [{ key: 'k', value: { seq: 1 }, timestamp: T0 }]);
      await waitFor(() => seen.has(1), { ...WAIT, message: 'the valid event' });
      expect(seen.events.map(seqOf)).toEqual([1]);
    });

    it('rejects a topic name outside [a-zA-Z0-9._-]{1,249} or an empty group with VALIDATION_FAILED', async () => {
      const event: BusEvent = { key: 'k', value: 1, timestamp: T0 };
      for (const topic of ['', 'a b', 'a/b', 'é', 'x'.repeat(250)]) {
        await rejectsWithCode(bus().publish(topic, [event]), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(
          bus().subscribe(topic, 'g', async () => undefined),
          ErrorCodes.VALIDATION_FAILED,
        );
      }
      await rejectsWithCode(
        bus().subscribe(unique('t'), '', async () => undefined),
        ErrorCodes.VALIDATION_FAILED,
      );
    });

    it('fails publish and subscribe after close with STORE_CLOSED; close twice is fine', async () => {
      const topic = unique('t');
      const seen = new Recorder();
      await subscribe(topic, unique('g'), seen);
      await bus().publish(topic, numbered(['a'], 1));
      await waitFor(() => seen.has(1), { ...WAIT, message: 'the event' });
      await bus().close();
      await bus().close();
      await rejectsWithCode(bus().publish(topic, numbered(['a'], 1, 1)), ErrorCodes.STORE_CLOSED);
      await rejectsWithCode(bus().publish(topic, []), ErrorCodes.STORE_CLOSED);
      await rejectsWithCode(bus().subscribe(topic, unique('g'), seen.handler), ErrorCodes.STORE_CLOSED);
      expect(seen.events).toHaveLength(1);
    });
  });
}
