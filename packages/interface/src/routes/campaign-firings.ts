import { firingNote, type Campaign, type CampaignFiring, type FiringNote } from '@herald/core/campaign';
import type { TaskStore } from '@herald/core/ports';

/** A firing as the API answers it: the record, and what it came to in words when it reached nobody. */
export type CampaignFiringView = Omit<CampaignFiring, 'runKey'> & { note: FiringNote | null };

/**
 * The history's firings with their notes (docs/campaigns.md, "The firing
 * history"): each fired firing's task is read to tell a firing that reached
 * nobody because everyone had the content already (code
 * `reached_nobody_already_sent`) from one that sent; the others' note is null.
 */
export async function firingViews(
  store: TaskStore,
  campaign: Campaign,
  firings: readonly CampaignFiring[],
): Promise<CampaignFiringView[]> {
  return Promise.all(
    firings.map(async ({ runKey: _private, ...firing }) => {
      // The run key is the caller's Idempotency-Key, account-scoped: not part of the history's record.
      if (firing.taskId === null) return { ...firing, note: null };
      const task = await store.getTask(firing.taskId);
      return { ...firing, note: firingNote(task, campaign.template.noResend) };
    }),
  );
}
