import { TOPICS, type BusEvent, type Meter } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import { LevelEventLog } from '@herald/events-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { startPresenceAgent, type PresenceAgent } from './agent';

/** Counts what the agent meters, by name and labels. */
function countingMeter() {
  const counts = new Map<string, number>();
  const meter: Meter = {
    counter: (name) => ({
      inc: (labels = {}, n = 1) =>
        counts.set(`${name}${JSON.stringify(labels)}`, (counts.get(`${name}${JSON.stringify(labels)}`) ?? 0) + n),
    }),
    gauge: () => ({ set() {} }),
    histogram: () => ({ observe() {} }),
  };
  const read = (result: string) =>
    counts.get(`herald_presence_events_total${JSON.stringify({ agent: 'presence-1', result })}`) ?? 0;
  return { meter, read };
}

const event = (uin: number, online: boolean, at: number, extra: object = {}): BusEvent => ({
  key: String(uin),
  value: { uin, online, at, ...extra },
  timestamp: at,
});

let dir: TempDir;
let bus: LevelEventLog;
let agent: PresenceAgent | undefined;

beforeEach(async () => {
  dir = await makeTempDir('herald-presence-');
  bus = await LevelEventLog.open(dir.path);
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await bus.close();
  await dir.remove();
});

async function start(
  bitmap: TypedArrayBitmap,
  notified: number[][],
  generation = 'g1',
  notifyLogins?: (uins: Uint32Array) => Promise<void>,
) {
  const counting = countingMeter();
  agent = await startPresenceAgent({
    id: 'presence-1',
    bus,
    bitmap,
    generation,
    meter: counting.meter,
    notifyLogins: notifyLogins ?? (async (uins) => void notified.push([...uins])),
  });
  return counting;
}

describe('presence agent', () => {
  it('keeps the bitmap and tells the executors only about users who came online', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const notified: number[][] = [];
    const { read } = await start(bitmap, notified);
    await bus.publish(TOPICS.presence, [
      event(1, true, 100),
      event(2, true, 100),
      event(1, true, 150),
      event(2, false, 200),
      event(3, false, 200),
    ]);
    await waitFor(() => read('applied') === 5, { message: 'five events applied' });
    expect([bitmap.isOnline(1), bitmap.isOnline(2), bitmap.isOnline(3)]).toEqual([true, false, false]);
    expect(notified.flat()).toEqual([1, 2]); // the second login of 1 was no news
  });

  it('never lets a late logout hide a newer login', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const { read } = await start(bitmap, []);
    await bus.publish(TOPICS.presence, [event(7, true, 2000), event(7, false, 1000)]);
    await waitFor(() => read('stale') === 1, { message: 'the late logout counted as stale' });
    expect(bitmap.isOnline(7)).toBe(true);
    expect(read('applied')).toBe(1);
  });

  it('uses the event timestamp when the value has no time', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const { read } = await start(bitmap, []);
    await bus.publish(TOPICS.presence, [
      { key: '8', value: { uin: 8, online: true }, timestamp: 500 },
      { key: '8', value: { uin: 8, online: false }, timestamp: 400 },
    ]);
    await waitFor(() => read('stale') === 1, { message: 'the older logout counted as stale' });
    expect(bitmap.isOnline(8)).toBe(true);
  });

  it.each([
    ['a uin past the space', { uin: 1024, online: true }],
    ['a negative uin', { uin: -1, online: true }],
    ['a string uin', { uin: '5', online: true }],
    ['online not a boolean', { uin: 5, online: 1 }],
    ['a bad time', { uin: 5, online: true, at: 'noon' }],
    ['no object', 'login 5'],
  ])('skips and counts a malformed event (%s) and goes on', async (_name, value) => {
    const bitmap = new TypedArrayBitmap(1024);
    const { read } = await start(bitmap, []);
    await bus.publish(TOPICS.presence, [{ key: 'bad', value, timestamp: 1 }, event(9, true, 2)]);
    await waitFor(() => read('applied') === 1, { message: 'the good event after the bad one applied' });
    expect(read('malformed')).toBe(1);
    expect(bitmap.isOnline(9)).toBe(true);
    expect(bitmap.isOnline(5)).toBe(false);
  });

  it('resumes where it stopped with the same generation, and replays everything into a new bitmap with a new one', async () => {
    const first = new TypedArrayBitmap(1024);
    const notified: number[][] = [];
    let counting = await start(first, notified);
    await bus.publish(TOPICS.presence, [event(1, true, 1), event(2, true, 2)]);
    await waitFor(() => counting.read('applied') === 2, { message: 'two events applied' });
    await agent!.close();

    counting = await start(first, notified); // same bitmap, same generation: a restart
    await bus.publish(TOPICS.presence, [event(3, true, 3)]);
    await waitFor(() => counting.read('applied') === 1, { message: 'only the new event applied' });
    expect(notified.flat()).toEqual([1, 2, 3]);
    await agent!.close();

    const fresh = new TypedArrayBitmap(1024); // the file was lost (a reboot emptied /dev/shm)
    counting = await start(fresh, notified, 'g2');
    await waitFor(() => counting.read('applied') === 3, { message: 'the whole topic replayed' });
    expect([1, 2, 3].map((uin) => fresh.isOnline(uin))).toEqual([true, true, true]);
  });

  it('notifies again after a failed notice, although the redelivered events change no bit', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const notified: number[][] = [];
    let failures = 1;
    const { read } = await start(bitmap, notified, 'g1', async (uins) => {
      if (failures-- > 0) throw new Error('executor link down');
      notified.push([...uins]);
    });
    await bus.publish(TOPICS.presence, [event(4, true, 1), event(5, true, 1)]);
    await waitFor(() => notified.length === 1, { message: 'the notice retried' });
    expect(notified).toEqual([[4, 5]]);
    expect(read('applied')).toBe(4); // the batch was applied twice: idempotent
  });
});
