import { loadRecipientList } from '@herald/audience';
import { bitAt, unreachableOf } from '@herald/core/fate';
import { variantIndexOf } from '@herald/core/rollout';
import { deliveryOrderListIdOf, type Task } from '@herald/core/task';
import type { RecipientFateDeps } from './recipient-fate';

/** One variant of an A/B task on its funnel (docs/rollouts.md, "Reports"). */
export interface VariantCount {
  name: string;
  share: number;
  /** Kept recipients the variant was given: its part of the filtered list. */
  recipients: number;
  /** Of them, pushed online (delivery records; null where the profile keeps none). */
  deliveredOnline: number | null;
  /** Of them, queued offline (delivery records; null where the profile keeps none). */
  queuedOffline: number | null;
}

/**
 * An A/B task's counts per variant, or undefined for a task without
 * variants or not filtered yet. Each kept recipient's variant is recomputed
 * from its uin and the task's seed (the placement the executors used), one
 * byte per recipient; the delivery records are walked once in position
 * order, as the funnel walks them. The held-out share is the funnel's
 * `held_out` link.
 */
export async function variantCounts(
  task: Task,
  deps: RecipientFateDeps & { uinLimit: number },
): Promise<VariantCount[] | undefined> {
  const rollout = task.rollout;
  if (rollout?.variants === undefined || task.filteredListId === null) return undefined;
  const { seed, variants } = rollout;
  const holdout = rollout.holdout ?? 0;
  // The records hold positions of the list the units ranged over: a local-time task's delivery-order list.
  const listId = task.report.localGroups === undefined ? task.filteredListId : deliveryOrderListIdOf(task.id);
  const uins = await loadRecipientList(deps.lists.pathOf(listId), { uinLimit: deps.uinLimit });
  const variantAt = new Uint8Array(uins.length);
  const recipients = new Array<number>(variants.length).fill(0);
  for (let i = 0; i < uins.length; i++) {
    // A kept recipient is never held out; max() only guards a list filtered before its rollout changed.
    const at = Math.max(0, variantIndexOf(uins[i]!, seed, variants, holdout));
    variantAt[i] = at;
    recipients[at]!++;
  }
  const online = deps.deliveryRecords === undefined ? undefined : new Array<number>(variants.length).fill(0);
  const offline = online === undefined ? undefined : new Array<number>(variants.length).fill(0);
  let complete = deps.deliveryRecords !== undefined;
  if (deps.deliveryRecords !== undefined) {
    const walk = deps.deliveryRecords.batchesFrom(task.id, 0);
    for await (const record of walk) {
      for (let j = 0; j < record.count; j++) {
        const at = variantAt[record.from + j]!;
        if (bitAt(record.online, j)) online![at]!++;
        else offline![at]!++;
      }
    }
    // A host that did not answer (production): its records are not counted, so no count is given.
    complete = unreachableOf(walk).size === 0;
  }
  return variants.map((v, i) => ({
    name: v.name,
    share: v.share,
    recipients: recipients[i]!,
    deliveredOnline: complete ? online![i]! : null,
    queuedOffline: complete ? offline![i]! : null,
  }));
}
