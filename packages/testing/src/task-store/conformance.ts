import type { TaskStore } from '@herald/core/ports';
import { useFreshStore, type StoreFactory } from '../store-factory';
import { describeConcurrency } from './concurrency';
import { describeData } from './data';
import { describeIdempotency } from './idempotency';
import { describeOutbox } from './outbox';
import { describeProgress } from './progress';
import { describeTaskSearch } from './search';
import { describeTaskReads } from './tasks';
import { describeUnits } from './units';
import { describeTaskWrites } from './writes';

/**
 * The TaskStore contract as tests. Every adapter's test file calls this once
 * with a factory that opens a fresh, empty store; each test gets its own.
 *
 * @example
 *   taskStoreConformance('LevelTaskStore', async () => {
 *     const dir = await makeTempDir('herald-level-');
 *     return { store: await LevelTaskStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function taskStoreConformance(name: string, open: StoreFactory<TaskStore>): void {
  describe(`TaskStore conformance: ${name}`, () => {
    const store = useFreshStore(open);
    describeTaskReads(store);
    describeTaskSearch(store);
    describeTaskWrites(store);
    describeUnits(store);
    describeData(store);
    describeConcurrency(store);
    describeOutbox(store);
    describeIdempotency(store);
    describeProgress(store);
  });
}
