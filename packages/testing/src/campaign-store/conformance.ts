import type { CampaignStore } from '@herald/core/ports';
import { useFreshStore, type StoreFactory } from '../store-factory';
import { describeCampaigns } from './campaigns';
import { describeFirings } from './firings';
import { describeRunKeys } from './run-keys';
import { describeCampaignSearch } from './search';

/**
 * The CampaignStore contract (core/src/ports/campaign-store.ts) as tests.
 * Every adapter's test file calls this once with a factory that opens a
 * fresh, empty store; each test gets its own.
 *
 * @example
 *   campaignStoreConformance('LevelCampaignStore', async () => {
 *     const dir = await makeTempDir('herald-campaigns-');
 *     return { store: await LevelCampaignStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function campaignStoreConformance(name: string, open: StoreFactory<CampaignStore>): void {
  describe(`CampaignStore conformance: ${name}`, () => {
    const store = useFreshStore(open);
    describeCampaigns(store);
    describeFirings(store);
    describeRunKeys(store);
    describeCampaignSearch(store);
  });
}
