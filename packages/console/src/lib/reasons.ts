/** Why a filter removed a recipient, in the operator's words: the task page and the dry-run preview share them. */
export const REASON_TEXT: Record<string, string> = {
  duplicate: 'duplicate in the list',
  blacklisted: 'blacklisted (global or account)',
  already_sent: 'already sent this content',
  not_follower: 'not a follower',
  over_frequency: 'over the frequency limit',
  targeting: 'outside the targeting',
  held_out: 'in the A/B holdout (sent nothing on purpose)',
};

export const reasonText = (reason: string): string => REASON_TEXT[reason] ?? reason.replace(/_/g, ' ');
