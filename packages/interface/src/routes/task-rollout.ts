import { randomBytes } from 'node:crypto';
import { ValidationError } from '@herald/core';
import { parseVariants, type TaskRollout } from '@herald/core/rollout';

/** The rollout fields of POST /api/v1/tasks (docs/rollouts.md). */
export interface RolloutRequest {
  variants?: unknown;
  holdout?: unknown;
}

/**
 * The task's rollout from its request, or undefined for one content to all:
 * core's parser names the field of any refusal (`variants[1].share`, `holdout`),
 * before anything is held or created. The seed that places each uin is drawn
 * here, once: retries of the task, its recovery and a failover reuse it.
 */
export function rolloutOfRequest(body: RolloutRequest): TaskRollout | undefined {
  if (body.variants === undefined) {
    if (body.holdout !== undefined) throw new ValidationError('holdout needs variants', { field: 'holdout' });
    return undefined;
  }
  const { variants, holdout } = parseVariants(body.variants, body.holdout);
  return { seed: randomBytes(4).readUInt32LE(0), variants, ...(holdout > 0 ? { holdout } : {}) };
}
