import { accessStoreConformance, makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { LevelAccessStore } from './level-access-store';

accessStoreConformance('LevelAccessStore', async () => {
  const dir = await makeTempDir('herald-level-access-');
  return { store: await LevelAccessStore.open(dir.path), cleanup: dir.remove };
});

describe('LevelAccessStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-access-');
  });
  afterEach(() => dir.remove());

  it('keeps tokens and the audit log across reopen, and goes on numbering audit entries after the last one', async () => {
    const store = await LevelAccessStore.open(dir.path);
    await store.createToken({
      id: 'op01',
      name: 'ops',
      role: 'operator',
      accounts: ['acme'],
      hash: 'f'.repeat(64),
      createdAt: 1,
    });
    const first = await store.appendAudit({
      at: 2,
      tokenId: 'op01',
      tokenName: 'ops',
      action: 'POST /api/v1/tasks',
      status: 201,
    });
    await store.close();

    const again = await LevelAccessStore.open(dir.path);
    expect(await again.findToken('op01')).toMatchObject({ accounts: ['acme'], hash: 'f'.repeat(64) });
    const second = await again.appendAudit({
      at: 3,
      tokenId: 'op01',
      tokenName: 'ops',
      action: 'POST /api/v1/tasks',
      status: 201,
    });
    expect(second.id).toBe(first.id + 1);
    expect((await again.listAudit()).entries.map((e) => e.id)).toEqual([second.id, first.id]);
    await again.close();
  });

  it('refuses a directory another process holds with UNAVAILABLE', async () => {
    const store = await LevelAccessStore.open(dir.path);
    await rejectsWithCode(LevelAccessStore.open(dir.path), 'UNAVAILABLE');
    await store.close();
  });
});
