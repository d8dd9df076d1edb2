/*
 * A firing that reached nobody says why in words (docs/campaigns.md, "The
 * firing history"): the history shows a fired firing whose task completed
 * with nothing to send, and the operator should not have to read the task's
 * filter counts to learn that everyone had the content already.
 */
import type { Task } from '../task/model';
import type { NoResend } from './no-resend';

export interface FiringNote {
  /** `reached_nobody_already_sent`: the no-resend filter removed everyone the firing had left. */
  code: 'reached_nobody_already_sent';
  message: string;
}

/** Links after no-resend in the chain: when they removed nobody, no-resend alone emptied the firing. */
const AFTER_NO_RESEND = ['not_follower', 'targeting', 'over_frequency'] as const;

/**
 * The note for a fired firing given its task (undefined: not found) and the
 * campaign's no-resend scope now; null when there is nothing to say (not
 * filtered yet, someone kept, or another filter emptied it).
 */
export function firingNote(
  task: Pick<Task, 'filteredListId' | 'report'> | undefined,
  noResend: NoResend | undefined,
): FiringNote | null {
  if (task === undefined || task.filteredListId === null) return null;
  const { kept, removed } = task.report;
  const suppressed = removed.already_sent ?? 0;
  if (kept !== 0 || suppressed === 0 || AFTER_NO_RESEND.some((reason) => (removed[reason] ?? 0) > 0)) return null;
  const who = suppressed === 1 ? 'its 1 recipient' : `all ${suppressed} recipients`;
  return {
    code: 'reached_nobody_already_sent',
    message: `Reached nobody: ${who} already got this content. ${hint(noResend)}`,
  };
}

function hint(noResend: NoResend | undefined): string {
  switch (noResend?.scope) {
    case undefined:
    case 'content':
      return "The no-resend scope is 'content' (each content once per recipient): set the scope to 'firing' or a window, or change the content, to send again.";
    case 'window':
      return `The no-resend scope is a window of ${noResend.window}: they got it within it.`;
    case 'firing':
      return "The no-resend scope is 'firing': a task of the same content scheduled after this firing was filtered first.";
  }
}
