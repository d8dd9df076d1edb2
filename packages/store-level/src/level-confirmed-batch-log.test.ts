import { confirmedBatchLogConformance, makeTempDir, type TempDir } from '@herald/testing';
import { LevelConfirmedBatchLog } from './level-confirmed-batch-log';

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

  it('refuses a directory another process holds with UNAVAILABLE', async () => {
    const holder = await LevelConfirmedBatchLog.open(dir.path);
    try {
      await expect(LevelConfirmedBatchLog.open(dir.path)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await holder.close();
    }
  });
});
