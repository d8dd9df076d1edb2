import type { CampaignQuery } from '@herald/core/campaign';
import type { CampaignStore } from '@herald/core/ports';
import { failure, newCampaign, CAMPAIGN_NOW as NOW } from './fixtures';

/** Every campaign a query finds, following nextCursor to the end (a search's pages may be short). */
async function searchAll(store: CampaignStore, query: CampaignQuery): Promise<number[]> {
  const ids: number[] = [];
  let afterId: number | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.listCampaigns({ ...query, ...(afterId === undefined ? {} : { afterId }) });
    expect(page.campaigns.length).toBeLessThanOrEqual(query.limit ?? 100);
    ids.push(...page.campaigns.map((c) => c.id));
    if (page.nextCursor === null) return ids;
    afterId = page.nextCursor;
  }
  throw new Error('listCampaigns kept answering a cursor');
}

/** listCampaigns' text search (CampaignQuery.q): name, template title and body, ignoring case; digits match the id. */
export function describeCampaignSearch(store: () => CampaignStore): void {
  describe('listCampaigns search (q)', () => {
    const template = (title: string | undefined, body: string) => ({
      ...newCampaign().template,
      content: title === undefined ? { body } : { title, body },
    });

    it('finds the name, the title or the body ignoring case, with the other filters and paging', async () => {
      const s = store();
      const byName = await s.createCampaign(newCampaign({ name: 'Weekly DIGEST', template: template('T', 'b') }), NOW);
      const byTitle = await s.createCampaign(newCampaign({ name: 'n', template: template('Digest', 'b') }), NOW);
      const byBody = await s.createCampaign(
        newCampaign({ accountId: 'acct-2', enabled: false, template: template(undefined, 'your digest is here') }),
        NOW,
      );
      await s.createCampaign(newCampaign({ name: 'Other', template: template('News', 'Good morning') }), NOW);
      expect(await searchAll(s, { q: 'digest' })).toEqual([byName.id, byTitle.id, byBody.id]);
      expect(await searchAll(s, { q: 'DiGeSt', limit: 1 })).toEqual([byName.id, byTitle.id, byBody.id]);
      expect(await searchAll(s, { q: 'digest', accountIds: ['acct-2'] })).toEqual([byBody.id]);
      expect(await searchAll(s, { q: 'digest', enabled: true })).toEqual([byName.id, byTitle.id]);
      expect(await searchAll(s, { q: 'nothing like it' })).toEqual([]);
    });

    it('matches digits against the id exactly, and takes %, _ and \\ literally', async () => {
      const s = store();
      const first = await s.createCampaign(newCampaign({ name: 'plain' }), NOW);
      const special = await s.createCampaign(newCampaign({ name: 'half%_a\\b' }), NOW);
      await s.createCampaign(newCampaign({ name: 'half xa b' }), NOW);
      expect(await searchAll(s, { q: String(first.id) })).toEqual([first.id]);
      expect(await searchAll(s, { q: '%' })).toEqual([special.id]);
      expect(await searchAll(s, { q: '_a' })).toEqual([special.id]);
      expect(await searchAll(s, { q: 'a\\b' })).toEqual([special.id]);
    });

    it('refuses an empty term or one over 200 characters, naming q', async () => {
      for (const q of ['', 'x'.repeat(201)])
        expect(await failure(store().listCampaigns({ q }))).toEqual({ code: 'VALIDATION_FAILED', field: 'q' });
      expect(await searchAll(store(), { q: 'x'.repeat(200) })).toEqual([]);
    });
  });
}
