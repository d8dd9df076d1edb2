import { useRef, useState } from 'react';
import { api, ApiError, newIdempotencyKey } from '../api/client';
import type { Campaign, CampaignFiring, ConfirmationRequired } from '../api/types';
import { fmtInt } from '../lib/format';
import { confirmationOf } from '../lib/large-send';
import { navigate } from '../router';
import { ConfirmDialog } from './ConfirmDialog';
import { ConfirmSendDialog } from './ConfirmSendDialog';

/**
 * "Run now": fires the campaign once, outside its schedule (POST
 * /api/v1/campaigns/:id/run), after the operator confirms who it reaches. A
 * large run is put to them as a large broadcast is (type the count). Done,
 * the operator lands on the task it created, which links back here.
 *
 * One Idempotency-Key per run the operator confirms, kept until the run is
 * answered: when the answer is lost (the connection dropped, the server
 * restarted) and they run again, the server answers the firing the first try
 * made instead of firing a second time.
 */
export function RunNowButton({ campaign, onError }: { campaign: Campaign; onError: (e: Error | null) => void }) {
  const opener = useRef<HTMLButtonElement>(null);
  const [asking, setAsking] = useState(false);
  const [ask, setAsk] = useState<ConfirmationRequired | null>(null);
  const [busy, setBusy] = useState(false);
  const runKey = useRef<string | null>(null);
  const recipients = campaign.projectedDailyReach?.recipientsPerFiring;

  const run = async (confirm?: number) => {
    setBusy(true);
    onError(null);
    try {
      runKey.current ??= newIdempotencyKey();
      const firing = await api<CampaignFiring>(
        'POST',
        `/api/v1/campaigns/${campaign.id}/run`,
        confirm === undefined ? undefined : { confirm },
        undefined,
        { 'idempotency-key': runKey.current },
      );
      runKey.current = null;
      navigate(`/tasks/${firing.taskId}`);
    } catch (e) {
      setAsking(false);
      const needed = confirmationOf(e);
      setAsk(needed);
      if (!needed) onError(inOperatorWords(e as Error));
      setBusy(false);
    }
  };

  return (
    <>
      <button ref={opener} onClick={() => setAsking(true)} disabled={busy}>
        Run now…
      </button>
      {asking && (
        <ConfirmDialog
          title={`Run “${campaign.name}” now?`}
          confirmLabel="Yes, run now"
          busyLabel="Running…"
          keepLabel="Keep to the schedule"
          busy={busy}
          onConfirm={() => void run()}
          onClose={() => setAsking(false)}
          opener={opener}
        >
          <p>
            It sends the message to{' '}
            <strong>
              {recipients == null
                ? 'the recipients'
                : `${fmtInt(recipients)} ${recipients === 1 ? 'recipient' : 'recipients'}`}
            </strong>{' '}
            of list <code>{campaign.template.listId}</code> now, once, outside the schedule.
            {!campaign.enabled && ' The campaign stays disabled.'} Its scheduled firings stay as they are.
          </p>
        </ConfirmDialog>
      )}
      {ask && (
        <ConfirmSendDialog
          ask={ask}
          busy={busy}
          onConfirm={() => void run(ask.recipients)}
          onClose={() => setAsk(null)}
          opener={opener}
        />
      )}
    </>
  );
}

/** The refusals a run can meet, said as what to do about them. */
function inOperatorWords(error: Error): Error {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'LIST_NOT_FOUND')
    return new Error("The campaign's list is gone: edit the campaign and upload its list again, then run it.");
  if (error.code === 'ACCOUNT_QUOTA_EXCEEDED') return new Error(`Not run: ${error.message}`);
  return error;
}
