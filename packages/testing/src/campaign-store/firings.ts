import type { CampaignStore } from '@herald/core/ports';
import { CAMPAIGN_NOW as NOW, failure, newCampaign } from './fixtures';

/** The schedule's bookkeeping: the lastScheduledAt compare-and-set and the firing history. */
export function describeFirings(store: () => CampaignStore): void {
  describe('lastScheduledAt compare-and-set', () => {
    it('moves only from the value the caller read', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      expect(await store().advanceLastScheduled(c.id, NOW + 1, NOW + 2)).toBe(false);
      expect(await store().advanceLastScheduled(c.id, null, NOW + 60_000)).toBe(true);
      expect((await store().getCampaign(c.id))!.lastScheduledAt).toBe(NOW + 60_000);
      expect(await store().advanceLastScheduled(c.id, null, NOW + 120_000)).toBe(false);
      expect(await store().advanceLastScheduled(c.id, NOW + 60_000, NOW + 120_000)).toBe(true);
      expect(await store().getCampaign(c.id)).toMatchObject({ lastScheduledAt: NOW + 120_000, updatedAt: NOW });
    });

    it('of concurrent advances from one value, exactly one succeeds', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store().advanceLastScheduled(c.id, null, NOW + 1000 * (i + 1))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await store().getCampaign(c.id))!.lastScheduledAt).toBe(NOW + 1000 * (winner + 1));
    });

    it('refuses a move backwards or a missing campaign', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      await store().advanceLastScheduled(c.id, null, NOW);
      expect(await failure(store().advanceLastScheduled(c.id, NOW, NOW))).toEqual({
        code: 'VALIDATION_FAILED',
        field: 'next',
      });
      expect((await failure(store().advanceLastScheduled(c.id + 1, null, NOW))).code).toBe('CAMPAIGN_NOT_FOUND');
    });
  });

  describe('firings', () => {
    it('records a firing once per scheduled time: the first record wins and every call answers it', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const fired = await store().recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 60_000,
        outcome: 'fired',
        taskId: 42,
        at: NOW + 60_100,
      });
      expect(fired).toEqual({
        campaignId: c.id,
        scheduledAt: NOW + 60_000,
        outcome: 'fired',
        taskId: 42,
        reason: null,
        at: NOW + 60_100,
      });
      const again = await store().recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 60_000,
        outcome: 'missed',
        reason: 'late',
        at: NOW + 200_000,
      });
      expect(again).toEqual(fired);
      expect(await store().getFiring(c.id, NOW + 60_000)).toEqual(fired);
      expect(await store().getFiring(c.id, NOW)).toBeUndefined();
    });

    it('keeps the manual-run marker of a firing, and no marker on the schedule ones', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const manual = await store().recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 7,
        at: NOW + 1,
        manual: true,
      });
      expect(manual).toEqual({
        campaignId: c.id,
        scheduledAt: NOW + 1,
        outcome: 'fired',
        taskId: 7,
        reason: null,
        at: NOW + 1,
        manual: true,
      });
      await store().recordFiring({ campaignId: c.id, scheduledAt: NOW, outcome: 'missed', reason: 'late', at: NOW });
      expect(await store().getFiring(c.id, NOW + 1)).toEqual(manual);
      const listed = (await store().listFirings(c.id)).firings;
      expect(listed[0]).toEqual(manual);
      expect('manual' in listed[1]!).toBe(false);
      expect(
        await failure(
          store().recordFiring({
            campaignId: c.id,
            scheduledAt: NOW + 2,
            outcome: 'missed',
            at: NOW,
            manual: 1 as never,
          }),
        ),
      ).toEqual({ code: 'VALIDATION_FAILED', field: 'manual' });
    });

    it('of concurrent records of one time, one is stored and all callers get it', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store().recordFiring({
            campaignId: c.id,
            scheduledAt: NOW,
            outcome: i % 2 ? 'fired' : 'missed',
            taskId: i + 1,
            at: NOW + i,
          }),
        ),
      );
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
      expect((await store().listFirings(c.id)).firings).toEqual([results[0]]);
    });

    it('lists newest first, keyset paged, one campaign at a time', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      const other = await store().createCampaign(newCampaign(), NOW);
      const times = [5, 1, 4, 2, 3].map((m) => NOW + m * 60_000);
      for (const t of times)
        await store().recordFiring({ campaignId: c.id, scheduledAt: t, outcome: 'missed', reason: 'late', at: t + 1 });
      await store().recordFiring({ campaignId: other.id, scheduledAt: NOW, outcome: 'fired', taskId: 1, at: NOW });
      const all = await store().listFirings(c.id);
      expect(all.firings.map((f) => f.scheduledAt)).toEqual([5, 4, 3, 2, 1].map((m) => NOW + m * 60_000));
      expect(all.nextCursor).toBeNull();
      const first = await store().listFirings(c.id, { limit: 2 });
      expect(first.firings.map((f) => f.scheduledAt)).toEqual([NOW + 300_000, NOW + 240_000]);
      expect(first.nextCursor).toBe(NOW + 240_000);
      const second = await store().listFirings(c.id, { limit: 2, beforeScheduledAt: first.nextCursor! });
      expect(second.firings.map((f) => f.scheduledAt)).toEqual([NOW + 180_000, NOW + 120_000]);
      const last = await store().listFirings(c.id, { limit: 2, beforeScheduledAt: second.nextCursor! });
      expect(last).toEqual({
        firings: [
          {
            campaignId: c.id,
            scheduledAt: NOW + 60_000,
            outcome: 'missed',
            taskId: null,
            reason: 'late',
            at: NOW + 60_001,
          },
        ],
        nextCursor: null,
      });
      expect((await store().listFirings(c.id + 1000)).firings).toEqual([]);
    });

    it('refuses a firing of a missing campaign, and bad fields by name', async () => {
      const c = await store().createCampaign(newCampaign(), NOW);
      expect(
        (await failure(store().recordFiring({ campaignId: c.id + 1, scheduledAt: NOW, outcome: 'missed', at: NOW })))
          .code,
      ).toBe('CAMPAIGN_NOT_FOUND');
      expect(
        await failure(store().recordFiring({ campaignId: c.id, scheduledAt: NOW, outcome: 'fired', at: NOW })),
      ).toEqual({ code: 'VALIDATION_FAILED', field: 'taskId' });
      expect(
        await failure(store().recordFiring({ campaignId: c.id, scheduledAt: -1, outcome: 'missed', at: NOW })),
      ).toEqual({ code: 'VALIDATION_FAILED', field: 'scheduledAt' });
      expect(
        await failure(
          store().recordFiring({ campaignId: c.id, scheduledAt: NOW, outcome: 'skipped' as never, at: NOW }),
        ),
      ).toEqual({ code: 'VALIDATION_FAILED', field: 'outcome' });
      expect(await failure(store().listFirings(c.id, { limit: 0 }))).toEqual({
        code: 'VALIDATION_FAILED',
        field: 'limit',
      });
      expect((await store().listFirings(c.id)).firings).toEqual([]);
    });
  });
}
