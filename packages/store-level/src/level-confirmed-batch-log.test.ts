import { confirmedBatchLogConformance, makeTempDir, type TempDir } from '@herald/testing';
import { LevelConfirmedBatchLog, MAX_CACHED_UNITS } from './level-confirmed-batch-log';

confirmedBatchLogConformance('LevelConfirmedBatchLog', async () => {
  const dir = await makeTempDir('herald-level-confirmed-');
  return { store: await LevelConfirmedBatchLog.open(dir.path), cleanup: dir.remove };
});

describe('LevelConfirmedBatchLog', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-confirmed-');
  });
  afterEach(() => dir.remove());

  it('keeps its records across a reopen (an executor restarted on the same host)', async () => {
    const first = await LevelConfirmedBatchLog.open(dir.path);
    await first.record(4, 1, 8192, { to: 12288, delivered: 1000, offline: 3096 }, Date.now() + 60_000);
    await first.close();
    const second = await LevelConfirmedBatchLog.open(dir.path);
    try {
      expect(await second.get(4, 1, 8192)).toEqual({ to: 12288, delivered: 1000, offline: 3096 });
    } finally {
      await second.close();
    }
  });

  it('reads a unit dropped from memory again from disk, and what was recorded since', async () => {
    const log = await LevelConfirmedBatchLog.open(dir.path);
    try {
      const units = MAX_CACHED_UNITS + 10;
      for (let unitNo = 0; unitNo < units; unitNo++) {
        expect(await log.get(1, unitNo, 0)).toBeUndefined();
        await log.record(1, unitNo, 0, { to: 4096, delivered: unitNo, offline: 4096 - unitNo }, Date.now() + 60_000);
      }
      // Unit 0 was the least recently asked: dropped when unit MAX_CACHED_UNITS was read.
      await log.record(1, 0, 4096, { to: 8192, delivered: 7, offline: 4089 }, Date.now() + 60_000);
      for (const unitNo of [0, 1, units - 1])
        expect(await log.get(1, unitNo, 0)).toEqual({ to: 4096, delivered: unitNo, offline: 4096 - unitNo });
      expect(await log.get(1, 0, 4096)).toEqual({ to: 8192, delivered: 7, offline: 4089 });
    } finally {
      await log.close();
    }
  });

  it('refuses a directory another process holds with UNAVAILABLE', async () => {
    const holder = await LevelConfirmedBatchLog.open(dir.path);
    try {
      await expect(LevelConfirmedBatchLog.open(dir.path)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await holder.close();
    }
  });
});
