import { join } from 'node:path';
import { radixSortUint32, subtractSorted } from '@herald/core/uins';
import type { SyntheticAudience } from '@herald/audience';
import { readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import type { ProcessCluster } from '@herald/testing';

/** What a synthetic audience must end as: kept = distinct - blacklist, split by who is online. */
export function expectedOutcome(audience: SyntheticAudience) {
  const kept = subtractSorted(audience.distinct.slice(), audience.blacklist);
  const offline = subtractSorted(kept.slice(), audience.online);
  const online = subtractSorted(kept.slice(), offline);
  return { kept, online, offline };
}

/**
 * What a task really left behind on every executor: the delivery files
 * (sorted, repeats kept) and the offline lists (sorted). Stops the executors
 * first: their LevelDB stores are opened here.
 */
export async function actualOutcome(
  cluster: ProcessCluster,
  dataDir: string,
  taskId: number,
): Promise<{ delivered: Uint32Array; queued: Uint32Array }> {
  for (const p of cluster.processes.filter((p) => p.tier === 'executor')) await cluster.stop(p);
  const delivered: number[] = [];
  const queued: number[] = [];
  for (const id of cluster.ids('executor')) {
    delivered.push(...(await readDeliveryFile(join(dataDir, 'deliveries', id), taskId)).uins);
    const store = await LevelOfflineStore.open(join(dataDir, `offline-${id}`), { rangeBits: 12 });
    for await (const part of store.scanTask(taskId)) queued.push(...part);
    await store.close();
  }
  return { delivered: radixSortUint32(Uint32Array.from(delivered)), queued: radixSortUint32(Uint32Array.from(queued)) };
}
