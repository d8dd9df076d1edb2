import { join } from 'node:path';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import type { Task } from '@herald/core/task';
import { readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';

/** What one task must end as: its list's distinct uins less the blacklist, split by who is online. */
export interface Expected {
  listLength: number;
  kept: Uint32Array;
  online: Uint32Array;
  offline: Uint32Array;
}

export function expectedFor(list: Uint32Array, blacklist: Uint32Array, online: Uint32Array): Expected {
  const distinct = uniqueSorted(radixSortUint32(list.slice()));
  const kept = subtractSorted(distinct, blacklist);
  const offline = subtractSorted(kept.slice(), online);
  return { listLength: list.length, kept, offline, online: subtractSorted(kept.slice(), offline) };
}

/** What every executor left behind for one task: delivery records (sorted, repeats kept) and offline entries. */
export interface Left {
  delivered: Uint32Array;
  /** Delivery records flagged "at login": none are expected, no user logs in during a chaos run. */
  atLogin: number;
  /** Uins with delivery records on more than one executor (still one idempotency key: task, uin). */
  onSeveralExecutors: number;
  queued: Uint32Array;
}

/**
 * Reads the delivery files and offline stores of every executor for each
 * task. The executors must be stopped first (their LevelDB stores are opened here).
 */
export async function readLeft(
  dataDir: string,
  executors: string[],
  taskIds: number[],
  rangeBits: number,
): Promise<Map<number, Left>> {
  const left = new Map<number, Left>();
  const stores = await Promise.all(
    executors.map((id) => LevelOfflineStore.open(join(dataDir, `offline-${id}`), { rangeBits })),
  );
  try {
    for (const taskId of taskIds) {
      const perExecutor: Uint32Array[] = [];
      let atLogin = 0;
      const queued: number[] = [];
      for (let e = 0; e < executors.length; e++) {
        const records = await readDeliveryFile(join(dataDir, 'deliveries', executors[e]!), taskId);
        perExecutor.push(records.uins);
        for (const flag of records.atLogin) atLogin += flag;
        for await (const part of stores[e]!.scanTask(taskId)) for (const uin of part) queued.push(uin);
      }
      const distinctPerExecutor = perExecutor.map((uins) => uniqueSorted(radixSortUint32(uins.slice())));
      const all = radixSortUint32(Uint32Array.from(perExecutor.flatMap((uins) => Array.from(uins))));
      const onSeveral = radixSortUint32(Uint32Array.from(distinctPerExecutor.flatMap((uins) => Array.from(uins))));
      left.set(taskId, {
        delivered: all,
        atLogin,
        onSeveralExecutors: onSeveral.length - uniqueSorted(onSeveral.slice()).length,
        queued: radixSortUint32(Uint32Array.from(queued)),
      });
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
  return left;
}

export interface TaskVerdict {
  taskId: number;
  state: string;
  list: number;
  delivered: number;
  offline: number;
  filtered: number;
  /** Expected recipients with neither a delivery record nor an offline entry. */
  lost: number;
  /** Records or entries for a recipient that should have none (blacklisted, duplicate, not in the list). */
  extra: number;
  /** Delivery records beyond the first for a recipient. */
  repeats: number;
  /** Batches of the filtered list (dispatcher.batchSize uins each) that hold a repeat. */
  repeatedBatches: number;
  /** At most this many batches may repeat: one per unit for each fault that overlapped the task's sending. */
  repeatBound: number;
  onSeveralExecutors: number;
  problems: string[];
}

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

/** Counts of sorted `a` not found in sorted `b`. */
function missing(a: Uint32Array, b: Uint32Array): number {
  return subtractSorted(a.slice(), b).length;
}

/** Index of `uin` in sorted, distinct `sorted` (it is there). */
function positionOf(sorted: Uint32Array, uin: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < uin) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The final checks for one task: a final state; delivered + offline + filtered
 * = list, exactly, in the report and in what the executors left; nobody lost
 * and nobody extra; repeats only as whole-batch re-deliveries of the batches
 * in flight at a fault, no more than the bound, none of them a login delivery.
 */
export function judge(
  task: Task,
  expected: Expected,
  left: Left,
  batchSize: number,
  faultsWhileSending: number,
): TaskVerdict {
  const problems: string[] = [];
  const filtered = Object.values(task.report.removed).reduce((a, b) => a + (b ?? 0), 0);
  if (!FINAL.includes(task.state)) problems.push(`task ${task.id} is still ${task.state}`);
  else if (task.state !== 'COMPLETED')
    problems.push(`task ${task.id} ended ${task.state}: ${JSON.stringify(task.error ?? null)}`);
  const r = task.report;
  if (r.delivered + r.offline + filtered !== expected.listLength) {
    problems.push(
      `task ${task.id}: delivered ${r.delivered} + offline ${r.offline} + filtered ${filtered} != list ${expected.listLength}`,
    );
  }
  if (
    r.total !== expected.listLength ||
    r.kept !== expected.kept.length ||
    r.delivered !== expected.online.length ||
    r.offline !== expected.offline.length
  ) {
    problems.push(
      `task ${task.id}: report ${JSON.stringify(r)} != expected total ${expected.listLength}, kept ${expected.kept.length}, delivered ${expected.online.length}, offline ${expected.offline.length}`,
    );
  }

  const distinct = uniqueSorted(left.delivered.slice());
  const queued = uniqueSorted(left.queued.slice());
  const lost = missing(expected.online, distinct) + missing(expected.offline, queued);
  const extra = missing(distinct, expected.online) + missing(queued, expected.offline);
  if (lost > 0) problems.push(`task ${task.id}: ${lost} recipients lost`);
  if (extra > 0)
    problems.push(`task ${task.id}: ${extra} deliveries or offline entries for recipients outside the expected sets`);
  if (left.atLogin > 0)
    problems.push(`task ${task.id}: ${left.atLogin} records flagged as login deliveries, yet nobody logged in`);

  const repeats = left.delivered.length - distinct.length;
  const batches = new Set<number>();
  for (let i = 1; i < left.delivered.length; i++) {
    if (left.delivered[i] === left.delivered[i - 1])
      batches.add(Math.floor(positionOf(expected.kept, left.delivered[i]!) / batchSize));
  }
  const units = task.report.units;
  const repeatBound = faultsWhileSending * units;
  if (batches.size > repeatBound) {
    problems.push(
      `task ${task.id}: repeats in ${batches.size} batches, more than one per unit (${units}) for each of the ${faultsWhileSending} faults while it was sending`,
    );
  }
  return {
    taskId: task.id,
    state: task.state,
    list: expected.listLength,
    delivered: r.delivered,
    offline: r.offline,
    filtered,
    lost,
    extra,
    repeats,
    repeatedBatches: batches.size,
    repeatBound,
    onSeveralExecutors: left.onSeveralExecutors,
    problems,
  };
}
