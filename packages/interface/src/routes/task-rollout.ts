import { randomBytes } from 'node:crypto';
import { ValidationError } from '@herald/core';
import { parseCanary, parseVariants, type TaskRollout } from '@herald/core/rollout';

/** The rollout fields of POST /api/v1/tasks (docs/rollouts.md). */
export interface RolloutRequest {
  variants?: unknown;
  holdout?: unknown;
  canary?: unknown;
}

/**
 * The task's rollout from its request, or undefined for one content to all:
 * core's parsers name the field of any refusal (`variants[1].share`, `holdout`, `canary.sample`),
 * before anything is held or created. The seed that places each uin is drawn
 * here, once: retries of the task, its recovery and a failover reuse it.
 */
export function rolloutOfRequest(body: RolloutRequest): TaskRollout | undefined {
  if (body.variants === undefined && body.holdout !== undefined)
    throw new ValidationError('holdout needs variants', { field: 'holdout' });
  const canary = body.canary === undefined ? undefined : parseCanary(body.canary);
  const split = body.variants === undefined ? undefined : parseVariants(body.variants, body.holdout);
  if (canary === undefined && split === undefined) return undefined;
  return {
    seed: randomBytes(4).readUInt32LE(0),
    ...(canary === undefined ? {} : { canary }),
    ...(split === undefined ? {} : { variants: split.variants }),
    ...(split !== undefined && split.holdout > 0 ? { holdout: split.holdout } : {}),
  };
}
