import type { ListMeta } from '@herald/core/task';
import type { ApiDeps } from '../api-deps';

/** The task a dry run describes: what its create would have stored. */
export interface DryRunTask {
  accountId: string;
  list: ListMeta;
  contentCrc: number;
  targeting: string | undefined;
  sendAt: number;
  expiresAt: number;
  speed: number | undefined;
}

/** POST /api/v1/tasks?dryRun=true's answer (docs/api.md, "Dry run"), less confirmationRequired. */
export interface DryRunAnswer {
  dryRun: true;
  recipients: {
    listed: number;
    /** Null when this process cannot run the filter chain (ApiDeps.previewRecipients unset). */
    kept: number | null;
    removed: Partial<Record<string, number>> | null;
    /** Present for a list filtered by a sample: how many recipients were filtered. */
    sampled?: number;
  };
  sendAt: number;
  expiresAt: number;
  /** With a speed: how long sending the kept recipients takes at it, ms. Null without a speed (the cluster's load decides). */
  estimatedSendMs: number | null;
}

/**
 * What a create would do, done by nothing: the real filter chain run over the
 * list (ApiDeps.previewRecipients, reading only), the times the task would
 * have, and how long its speed makes it. No task, quota, idempotency record or
 * scheduler message.
 */
export async function dryRunAnswer(deps: ApiDeps, task: DryRunTask): Promise<DryRunAnswer> {
  const preview = await deps.previewRecipients?.({
    accountId: task.accountId,
    listId: task.list.id,
    contentCrc: task.contentCrc,
    sendAt: task.sendAt,
    ...(task.targeting === undefined ? {} : { targeting: task.targeting }),
  });
  const recipients = preview ?? { listed: task.list.count, kept: null, removed: null };
  const kept = recipients.kept;
  return {
    dryRun: true,
    recipients,
    sendAt: task.sendAt,
    expiresAt: task.expiresAt,
    estimatedSendMs: task.speed === undefined || kept === null ? null : Math.ceil((kept * 1000) / task.speed),
  };
}
