import { accountDayOf } from '@herald/core/account-quota';
import { accountStoreConformance, makeTempDir, type TempDir } from '@herald/testing';
import { LevelAccountStore } from './level-account-store';

accountStoreConformance('LevelAccountStore', async () => {
  const dir = await makeTempDir('herald-level-accounts-');
  return { store: await LevelAccountStore.open(dir.path), cleanup: dir.remove };
});

describe('LevelAccountStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-accounts-');
  });
  afterEach(() => dir.remove());

  const NOON = 1_699_963_200_000;
  const limits = { dailyBroadcasts: 2, dailyRecipients: 100, minIntervalMs: 0, maxSpeed: 0 };

  it('keeps settings and reservations across close and reopen', async () => {
    const first = await LevelAccountStore.open(dir.path);
    await first.updateSettings('acme', { clickThroughRate: 0.02 }, NOON);
    await first.reserve(
      { accountId: 'acme', key: 'k1', sendAt: NOON, recipients: 7, at: NOON },
      limits,
      accountDayOf(0, NOON),
    );
    await first.close();

    const second = await LevelAccountStore.open(dir.path);
    expect(await second.getSettings('acme')).toEqual({
      accountId: 'acme',
      limits: {},
      clickThroughRate: 0.02,
      updatedAt: NOON,
    });
    expect(await second.usage('acme', accountDayOf(0, NOON), NOON)).toEqual({
      broadcasts: 1,
      recipients: 7,
      previousSendAt: NOON,
      nextSendAt: NOON,
    });
    expect(
      await second.reserve(
        { accountId: 'acme', key: 'k1', sendAt: NOON, recipients: 7, at: NOON },
        limits,
        accountDayOf(0, NOON),
      ),
    ).toMatchObject({ repeated: true });
    await second.close();
  });

  it('drops reservations sent more than the retention before a new one', async () => {
    const store = await LevelAccountStore.open(dir.path);
    const old = NOON - 4 * 86_400_000;
    await store.reserve(
      { accountId: 'acme', key: 'old', sendAt: old, recipients: 1, at: old },
      limits,
      accountDayOf(0, old),
    );
    await store.reserve(
      { accountId: 'acme', key: 'new', sendAt: NOON, recipients: 1, at: NOON },
      limits,
      accountDayOf(0, NOON),
    );
    expect(await store.usage('acme', accountDayOf(0, old), old)).toEqual({
      broadcasts: 0,
      recipients: 0,
      previousSendAt: null,
      nextSendAt: NOON,
    });
    // Its key is gone too: the same key counts again.
    expect(await store.release('acme', 'old')).toBe(false);
    await store.close();
  });
});
