import type { Campaign } from '@herald/core/campaign';
import type { CampaignStore } from '@herald/core/ports';
import { CAMPAIGN_NOW as NOW, failure, newCampaign } from './fixtures';

/** Creating, reading, listing, updating and deleting campaigns. */
export function describeCampaigns(store: () => CampaignStore): void {
  describe('campaigns', () => {
    it('creates campaigns with increasing ids: enabled by default, active from creation, never scheduled yet', async () => {
      const a = await store().createCampaign(newCampaign(), NOW);
      const b = await store().createCampaign(newCampaign({ enabled: false, timeZone: 'america/new_york' }), NOW + 1);
      expect(a.id).toBeGreaterThan(0);
      expect(b.id).toBeGreaterThan(a.id);
      expect(a).toEqual({ id: a.id, ...newCampaign(), enabled: true, createdAt: NOW, updatedAt: NOW, activeFrom: NOW });
      expect('lastScheduledAt' in a).toBe(false);
      expect(b).toMatchObject({ enabled: false, timeZone: 'America/New_York', createdAt: NOW + 1 });
      expect(await store().getCampaign(a.id)).toEqual(a);
      expect(await store().getCampaign(b.id)).toEqual(b);
    });

    it('round-trips any text and the optional template fields', async () => {
      const text = newCampaign({
        name: 'Ünïcödé 🎉 campaign ',
        accountId: 'ACCT é',
        template: { listId: 'list ✓', content: { body: 'line 1\nline "2"\u0000' }, priority: 'realtime' },
      });
      const created = await store().createCampaign(text, NOW);
      expect(await store().getCampaign(created.id)).toEqual({ ...created, ...text, enabled: true });
      expect((await store().getCampaign(created.id))!.template).toEqual({
        listId: 'list ✓',
        content: { body: 'line 1\nline "2"\u0000' },
        priority: 'realtime',
      });
    });

    it("round-trips a template's delivery and rollout settings: local time, quiet hours, collapse key, canary, variants", async () => {
      const template = {
        listId: 'list-1',
        content: { body: 'Digest {{firing.date}}', template: true as const },
        priority: 'normal' as const,
        noResend: { scope: 'window' as const, window: '7d' },
        deliverAt: { localTime: '09:00', window: '2h', missed: 'skip' as const },
        quietHours: { hours: '22:00-07:00', during: 'offline' as const },
        collapseKey: 'digest:daily',
        variants: [
          { name: 'a', share: 0.45, content: { body: 'A {{firing.date}}', template: true as const } },
          { name: 'b', share: 0.45, content: { title: 'B', body: 'Bee' } },
        ],
        holdout: 0.1,
      };
      const created = await store().createCampaign(newCampaign({ template }), NOW);
      expect(created.template).toEqual(template);
      expect((await store().getCampaign(created.id))!.template).toEqual(template);
      const canary = { sample: 5000, holdSeconds: 0, thresholds: { rejectedRatio: 0, failedRatio: 1 } };
      // A canary never goes with local time or quiet hours: the patch swaps them for a canary (sample a count).
      const next = {
        listId: 'list-1',
        content: template.content,
        priority: 'realtime' as const,
        collapseKey: 'k',
        canary,
      };
      const updated = await store().updateCampaign(created.id, { template: next }, NOW + 1);
      expect((await store().getCampaign(created.id))!.template).toEqual(next);
      expect(updated.template).toEqual(next);
    });

    it.each([
      [
        'template.canary.sample',
        { canary: { sample: '0%', holdSeconds: 0, thresholds: { rejectedRatio: 0, failedRatio: 0 } } },
      ],
      ['template.variants', { variants: [{ name: 'a', share: 0.5, content: { body: 'b' } }] }],
      ['template.collapseKey', { collapseKey: 'a b' }],
    ])('refuses a bad %s in a template with VALIDATION_FAILED, and stores nothing', async (field, change) => {
      const template = { listId: 'l', content: { body: 'b' }, priority: 'normal', ...change };
      expect(await failure(store().createCampaign(newCampaign({ template } as never), NOW))).toEqual({
        code: 'VALIDATION_FAILED',
        field,
      });
      expect((await store().listCampaigns()).campaigns).toEqual([]);
    });

    it.each([
      ['cron', { cron: '61 * * * *' }],
      ['cron', { cron: '0 0 31 2 *' }],
      ['timeZone', { timeZone: 'Mars/Olympus' }],
      ['name', { name: '' }],
      ['accountId', { accountId: '' }],
      ['template.priority', { template: { listId: 'l', content: { body: 'b' }, priority: 'soon' } }],
    ])('refuses a bad %s with VALIDATION_FAILED naming it, and stores nothing', async (field, change) => {
      expect(await failure(store().createCampaign(newCampaign(change as never), NOW))).toEqual({
        code: 'VALIDATION_FAILED',
        field,
      });
      expect((await store().listCampaigns()).campaigns).toEqual([]);
    });

    it('answers undefined for an id it does not hold', async () => {
      for (const id of [1, 999, 0, -1, 1.5, Number.NaN]) expect(await store().getCampaign(id)).toBeUndefined();
    });

    it('lists in id order, filtered by accounts and enabled, keyset paged', async () => {
      const made: Campaign[] = [];
      for (const [accountId, enabled] of [
        ['a', true],
        ['b', true],
        ['a', false],
        ['c', true],
        ['a', true],
        ['b', false],
      ] as const) {
        made.push(await store().createCampaign(newCampaign({ accountId, enabled }), NOW));
      }
      const ids = (page: { campaigns: { id: number }[] }) => page.campaigns.map((c) => c.id);
      expect(ids(await store().listCampaigns())).toEqual(made.map((c) => c.id));
      expect(ids(await store().listCampaigns({ accountIds: ['a'] }))).toEqual([made[0]!.id, made[2]!.id, made[4]!.id]);
      expect(ids(await store().listCampaigns({ accountIds: ['b', 'a'] }))).toEqual(
        [0, 1, 2, 4, 5].map((i) => made[i]!.id),
      );
      expect(ids(await store().listCampaigns({ accountIds: [] }))).toEqual([]);
      expect(ids(await store().listCampaigns({ accountIds: ['nobody'] }))).toEqual([]);
      expect(ids(await store().listCampaigns({ enabled: false }))).toEqual([made[2]!.id, made[5]!.id]);
      expect(ids(await store().listCampaigns({ accountIds: ['a'], enabled: true }))).toEqual([
        made[0]!.id,
        made[4]!.id,
      ]);

      const first = await store().listCampaigns({ limit: 2 });
      expect(first).toEqual({ campaigns: made.slice(0, 2), nextCursor: made[1]!.id });
      const second = await store().listCampaigns({ limit: 2, afterId: first.nextCursor! });
      expect(ids(second)).toEqual([made[2]!.id, made[3]!.id]);
      const last = await store().listCampaigns({ limit: 2, afterId: made[3]!.id });
      expect(last).toEqual({ campaigns: made.slice(4), nextCursor: null });
      const enabledPage = await store().listCampaigns({ enabled: true, limit: 2 });
      expect(ids(enabledPage)).toEqual([made[0]!.id, made[1]!.id]);
      expect(ids(await store().listCampaigns({ enabled: true, limit: 2, afterId: enabledPage.nextCursor! }))).toEqual([
        made[3]!.id,
        made[4]!.id,
      ]);
      const accountPage = await store().listCampaigns({ accountIds: ['a', 'b'], limit: 3 });
      expect(accountPage.nextCursor).toBe(made[2]!.id);
      expect(
        ids(await store().listCampaigns({ accountIds: ['a', 'b'], limit: 3, afterId: accountPage.nextCursor! })),
      ).toEqual([made[4]!.id, made[5]!.id]);
    });

    it('refuses a bad query with VALIDATION_FAILED', async () => {
      expect((await failure(store().listCampaigns({ limit: 0 }))).field).toBe('limit');
      expect((await failure(store().listCampaigns({ limit: 1001 }))).field).toBe('limit');
      expect((await failure(store().listCampaigns({ afterId: -1 }))).field).toBe('afterId');
    });

    it('updates what the patch names; enabling or a new schedule restarts it from now', async () => {
      const created = await store().createCampaign(newCampaign(), NOW);
      const renamed = await store().updateCampaign(
        created.id,
        {
          name: 'Evening news',
          template: { listId: 'list-2', content: { body: 'Good evening' }, priority: 'realtime' },
        },
        NOW + 10,
      );
      expect(renamed).toEqual({
        ...created,
        name: 'Evening news',
        template: { listId: 'list-2', content: { body: 'Good evening' }, priority: 'realtime' },
        updatedAt: NOW + 10,
      });
      expect(await store().getCampaign(created.id)).toEqual(renamed);
      const rescheduled = await store().updateCampaign(created.id, { cron: '0 18 * * *', timeZone: 'utc' }, NOW + 20);
      expect(rescheduled).toMatchObject({ cron: '0 18 * * *', timeZone: 'UTC', activeFrom: NOW + 20 });
      const disabled = await store().updateCampaign(created.id, { enabled: false }, NOW + 30);
      expect(disabled).toMatchObject({ enabled: false, activeFrom: NOW + 20 });
      expect(await store().updateCampaign(created.id, { enabled: true }, NOW + 40)).toMatchObject({
        enabled: true,
        activeFrom: NOW + 40,
        updatedAt: NOW + 40,
      });
    });

    it('never changes lastScheduledAt through an update', async () => {
      const created = await store().createCampaign(newCampaign(), NOW);
      expect(await store().advanceLastScheduled(created.id, null, NOW + 100)).toBe(true);
      const updated = await store().updateCampaign(
        created.id,
        { cron: '@hourly', lastScheduledAt: 5 } as never,
        NOW + 200,
      );
      expect(updated.lastScheduledAt).toBe(NOW + 100);
      expect((await store().getCampaign(created.id))!.lastScheduledAt).toBe(NOW + 100);
    });

    it('refuses a bad patch naming the field and changes nothing; a missing campaign is CAMPAIGN_NOT_FOUND', async () => {
      const created = await store().createCampaign(newCampaign(), NOW);
      expect(await failure(store().updateCampaign(created.id, { cron: '* * *' }, NOW + 1))).toEqual({
        code: 'VALIDATION_FAILED',
        field: 'cron',
      });
      expect(await failure(store().updateCampaign(created.id, { timeZone: 'Nowhere' }, NOW + 1))).toEqual({
        code: 'VALIDATION_FAILED',
        field: 'timeZone',
      });
      expect(await store().getCampaign(created.id)).toEqual(created);
      expect((await failure(store().updateCampaign(created.id + 100, { name: 'x' }, NOW))).code).toBe(
        'CAMPAIGN_NOT_FOUND',
      );
    });

    it('answers the campaign a key already holds instead of creating another, even under concurrency', async () => {
      const first = await store().createCampaign(newCampaign({ idempotencyKey: 'api:acct-1:k1' }), NOW);
      expect(first.idempotencyKey).toBe('api:acct-1:k1');
      const retry = await store().createCampaign(
        newCampaign({ idempotencyKey: 'api:acct-1:k1', name: 'Other' }),
        NOW + 5,
      );
      expect(retry).toEqual(first);
      expect(await store().getCampaignByIdempotencyKey('api:acct-1:k1')).toEqual(first);
      expect(await store().getCampaignByIdempotencyKey('api:acct-1:k2')).toBeUndefined();
      const racing = await Promise.all(
        Array.from({ length: 5 }, () => store().createCampaign(newCampaign({ idempotencyKey: 'api:acct-1:k3' }), NOW)),
      );
      expect(new Set(racing.map((c) => c.id)).size).toBe(1);
      expect((await store().listCampaigns()).campaigns).toHaveLength(2);
      // Without a key every creation is a new campaign, and the record carries no key.
      const plain = await store().createCampaign(newCampaign(), NOW);
      expect('idempotencyKey' in plain).toBe(false);
      expect('idempotencyKey' in (await store().getCampaign(plain.id))!).toBe(false);
    });

    it('frees a deleted campaign key, and refuses a bad key with VALIDATION_FAILED naming it', async () => {
      const first = await store().createCampaign(newCampaign({ idempotencyKey: 'k' }), NOW);
      expect(await store().deleteCampaign(first.id)).toBe(true);
      expect(await store().getCampaignByIdempotencyKey('k')).toBeUndefined();
      const second = await store().createCampaign(newCampaign({ idempotencyKey: 'k' }), NOW);
      expect(second.id).toBeGreaterThan(first.id);
      for (const bad of ['', 'x'.repeat(256), 7])
        expect(await failure(store().createCampaign(newCampaign({ idempotencyKey: bad as never }), NOW))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'idempotencyKey',
        });
    });

    it('deletes a campaign with its firing history; a second delete finds nothing', async () => {
      const kept = await store().createCampaign(newCampaign(), NOW);
      const gone = await store().createCampaign(newCampaign(), NOW);
      await store().recordFiring({ campaignId: gone.id, scheduledAt: NOW, outcome: 'missed', reason: 'late', at: NOW });
      await store().recordFiring({ campaignId: kept.id, scheduledAt: NOW, outcome: 'missed', reason: 'late', at: NOW });
      expect(await store().deleteCampaign(gone.id)).toBe(true);
      expect(await store().deleteCampaign(gone.id)).toBe(false);
      expect(await store().getCampaign(gone.id)).toBeUndefined();
      expect((await store().listFirings(gone.id)).firings).toEqual([]);
      expect((await store().listFirings(kept.id)).firings).toHaveLength(1);
      expect((await store().listCampaigns({ accountIds: ['acct-1'] })).campaigns).toEqual([kept]);
      // Ids are not reused after a delete.
      expect((await store().createCampaign(newCampaign(), NOW)).id).toBeGreaterThan(gone.id);
    });
  });
}
