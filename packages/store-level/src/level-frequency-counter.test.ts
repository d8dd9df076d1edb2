import { ErrorCodes } from '@herald/core';
import { frequencyCounterConformance, makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { LevelFrequencyCounter } from './level-frequency-counter';

frequencyCounterConformance('LevelFrequencyCounter', async () => {
  const dir = await makeTempDir('herald-level-frequency-');
  return {
    store: await LevelFrequencyCounter.open(dir.path),
    reopen: () => LevelFrequencyCounter.open(dir.path),
    cleanup: dir.remove,
  };
});

describe('LevelFrequencyCounter', () => {
  const DAY = 19_792;
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-frequency-');
  });
  afterEach(() => dir.remove());

  const used = async (counter: LevelFrequencyCounter, day: number, ...uins: number[]) => [
    ...(await counter.used(Uint32Array.from(uins), day)),
  ];

  it('keeps the newest retainDays days consumed and prunes older ones, also across reopen', async () => {
    const counter = await LevelFrequencyCounter.open(dir.path, { retainDays: 2 });
    expect(counter.retainDays).toBe(2);
    await counter.consume([{ taskId: 1, day: DAY, uins: Uint32Array.of(1, 2) }]);
    await counter.consume([{ taskId: 2, day: DAY + 1, uins: Uint32Array.of(1) }]);
    expect(await used(counter, DAY, 1, 2)).toEqual([1, 1]);
    await counter.consume([{ taskId: 3, day: DAY + 2, uins: Uint32Array.of(1) }]);
    // DAY is now older than the two newest days: gone.
    expect(await used(counter, DAY, 1, 2)).toEqual([0, 0]);
    expect(await used(counter, DAY + 1, 1)).toEqual([1]);
    // A late report for a pruned day is dropped rather than resurrecting it.
    await counter.consume([{ taskId: 1, day: DAY, uins: Uint32Array.of(1, 2) }]);
    expect(await used(counter, DAY, 1, 2)).toEqual([0, 0]);
    await counter.close();

    // The newest day is read back at open: the same retention applies after a restart.
    const again = await LevelFrequencyCounter.open(dir.path, { retainDays: 2 });
    await again.consume([{ taskId: 4, day: DAY, uins: Uint32Array.of(1) }]);
    expect(await used(again, DAY, 1)).toEqual([0]);
    expect(await used(again, DAY + 2, 1)).toEqual([1]);
    await again.consume([{ taskId: 5, day: DAY + 3, uins: Uint32Array.of(1) }]);
    expect(await used(again, DAY + 1, 1)).toEqual([0]);
    expect(await used(again, DAY + 2, 1)).toEqual([1]);
    await again.close();
  });

  it('reads a dense batch whose users have many tasks (keys spill across read chunks)', async () => {
    const counter = await LevelFrequencyCounter.open(dir.path);
    const uins = Uint32Array.from({ length: 500 }, (_, i) => 1000 + i);
    // User 1000 + i got tasks 0..(i % 150): up to 150 keys, more than one read chunk.
    const uses = Array.from({ length: 150 }, (_, t) => ({
      taskId: t,
      day: DAY,
      uins: uins.filter((_, i) => i % 150 >= t),
    }));
    await counter.consume(uses);
    const query = Uint32Array.from([999, ...uins, 1500, 5000]);
    expect(await used(counter, DAY, ...query)).toEqual([0, ...[...uins].map((_, i) => (i % 150) + 1), 0, 0]);
    // Every other user only: the walk skips read-ahead keys of users not asked about.
    const sparse = uins.filter((_, i) => i % 2 === 1);
    expect(await used(counter, DAY, ...sparse)).toEqual([...sparse].map((uin) => ((uin - 1000) % 150) + 1));
    await counter.close();
  });

  it('rejects a retainDays outside 1..366 with CONFIG_INVALID', async () => {
    for (const retainDays of [0, 367, 1.5])
      await rejectsWithCode(LevelFrequencyCounter.open(dir.path, { retainDays }), ErrorCodes.CONFIG_INVALID);
  });

  it('refuses a directory another process holds with UNAVAILABLE', async () => {
    const counter = await LevelFrequencyCounter.open(dir.path);
    await rejectsWithCode(LevelFrequencyCounter.open(dir.path), ErrorCodes.UNAVAILABLE);
    await counter.close();
  });
});
