import { variantIndexOf, type TaskRollout } from '@herald/core/rollout';
import type { FilterContext, RecipientFilter } from './filter';

/** Where the holdout link finds a task's rollout (NewTask.rollout): the task store in a real run. */
export interface RolloutSource {
  rolloutOf(context: FilterContext): Promise<TaskRollout | undefined>;
}

/** The rollout's holdout share, when it has one worth a link. */
async function heldShareOf(source: RolloutSource, context: FilterContext): Promise<TaskRollout | undefined> {
  const rollout = await source.rolloutOf(context);
  return rollout?.variants !== undefined && (rollout.holdout ?? 0) > 0 ? rollout : undefined;
}

/**
 * The A/B holdout (docs/rollouts.md): removes the recipients whose point
 * (a hash of uin and the task's seed) falls in the holdout share, reason
 * `held_out`, so they get nothing, are counted in the report's `removed`, and
 * their per-recipient answer says so from the removed sets like any link's.
 * Pure arithmetic per uin: no store read, so it costs next to nothing.
 */
export function holdoutFilter(source: RolloutSource): RecipientFilter {
  return {
    name: 'holdout',
    reason: 'held_out',
    runsFor: async (context) => (await heldShareOf(source, context)) !== undefined,
    async apply(uins, context) {
      const rollout = await heldShareOf(source, context);
      if (rollout === undefined) return uins;
      const { seed, variants, holdout } = rollout;
      const kept = new Uint32Array(uins.length);
      let n = 0;
      for (const uin of uins) if (variantIndexOf(uin, seed, variants!, holdout) >= 0) kept[n++] = uin;
      return kept.subarray(0, n);
    },
  };
}
