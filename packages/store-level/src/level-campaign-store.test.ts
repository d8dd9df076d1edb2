import { campaignStoreConformance, CAMPAIGN_NOW as NOW, makeTempDir, newCampaign, type TempDir } from '@herald/testing';
import { LevelCampaignStore } from './level-campaign-store';

campaignStoreConformance('LevelCampaignStore', async () => {
  const dir = await makeTempDir('herald-level-campaigns-');
  return { store: await LevelCampaignStore.open(dir.path), cleanup: dir.remove };
});

describe('LevelCampaignStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-campaigns-');
  });
  afterEach(() => dir.remove());

  it('keeps campaigns, firings and the id counter across close and reopen', async () => {
    const first = await LevelCampaignStore.open(dir.path);
    const a = await first.createCampaign(newCampaign(), NOW);
    const b = await first.createCampaign(newCampaign({ accountId: 'acct-2' }), NOW);
    await first.advanceLastScheduled(a.id, null, NOW + 60_000);
    await first.recordFiring({
      campaignId: a.id,
      scheduledAt: NOW + 60_000,
      outcome: 'fired',
      taskId: 7,
      at: NOW + 60_001,
    });
    await first.deleteCampaign(b.id);
    await first.close();

    const second = await LevelCampaignStore.open(dir.path);
    expect(await second.getCampaign(a.id)).toEqual({ ...a, lastScheduledAt: NOW + 60_000 });
    expect((await second.listFirings(a.id)).firings).toHaveLength(1);
    expect((await second.createCampaign(newCampaign(), NOW)).id).toBe(b.id + 1);
    await second.close();
  });

  it('refuses calls after close with STORE_CLOSED', async () => {
    const store = await LevelCampaignStore.open(dir.path);
    await store.close();
    await expect(store.getCampaign(1)).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});
