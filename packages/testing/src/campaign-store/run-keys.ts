import type { CampaignStore } from '@herald/core/ports';
import { CAMPAIGN_NOW as NOW, failure, newCampaign } from './fixtures';

/** Run keys: a manual run's Idempotency-Key kept beside its firing, so a retry finds it. */
export function describeRunKeys(store: () => CampaignStore): void {
  describe('run keys', () => {
    it('keeps a firing run key and finds the firing by it, whichever campaign asks', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const keyed = await store().recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 9,
        at: NOW + 1,
        manual: true,
        runKey: 'api:acct-1:run-1',
      });
      expect(keyed).toMatchObject({ campaignId: c.id, scheduledAt: NOW + 1, runKey: 'api:acct-1:run-1' });
      expect(await store().getFiringByRunKey('api:acct-1:run-1')).toEqual(keyed);
      expect(await store().getFiring(c.id, NOW + 1)).toEqual(keyed);
      expect(await store().getFiringByRunKey('api:acct-1:run-2')).toBeUndefined();
      expect(await store().getFiringByRunKey('')).toBeUndefined();
      await store().recordFiring({ campaignId: c.id, scheduledAt: NOW, outcome: 'missed', reason: 'late', at: NOW });
      expect('runKey' in (await store().getFiring(c.id, NOW))!).toBe(false);
    });

    it('leaves a run key with the first firing: a later one with that key is stored without it', async () => {
      const first = await store().createCampaign(newCampaign(), NOW);
      const second = await store().createCampaign(newCampaign(), NOW);
      const runKey = 'api:acct-1:shared';
      const kept = await store().recordFiring({
        campaignId: first.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 1,
        at: NOW + 1,
        runKey,
      });
      const later = await store().recordFiring({
        campaignId: second.id,
        scheduledAt: NOW + 3,
        outcome: 'fired',
        taskId: 2,
        at: NOW + 3,
        runKey,
      });
      expect(later).toEqual({
        campaignId: second.id,
        scheduledAt: NOW + 3,
        outcome: 'fired',
        taskId: 2,
        reason: null,
        at: NOW + 3,
      });
      expect(await store().getFiring(second.id, NOW + 3)).toEqual(later);
      expect(await store().getFiringByRunKey(runKey)).toEqual(kept);
    });

    it('frees the run keys of a deleted campaign, and refuses a key that is not a string', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const runKey = 'api:acct-1:gone';
      await store().recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 1,
        at: NOW,
        runKey,
      });
      expect(await store().deleteCampaign(c.id)).toBe(true);
      expect(await store().getFiringByRunKey(runKey)).toBeUndefined();
      const next = await store().createCampaign(newCampaign(), NOW);
      const reused = await store().recordFiring({
        campaignId: next.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 2,
        at: NOW,
        runKey,
      });
      expect(await store().getFiringByRunKey(runKey)).toEqual(reused);
      expect(
        await failure(
          store().recordFiring({
            campaignId: next.id,
            scheduledAt: NOW + 2,
            outcome: 'missed',
            at: NOW,
            runKey: 7 as never,
          }),
        ),
      ).toEqual({ code: 'VALIDATION_FAILED', field: 'runKey' });
    });
  });
}
