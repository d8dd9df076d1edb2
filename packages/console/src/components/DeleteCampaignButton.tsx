import { useRef, useState } from 'react';
import { api } from '../api/client';
import type { Campaign } from '../api/types';
import { navigate } from '../router';
import { ConfirmDialog } from './ConfirmDialog';

/**
 * "Delete": removes the campaign and its firing history (DELETE
 * /api/v1/campaigns/:id) after the operator confirms in the console's own
 * dialog, as every other risky action asks (Escape or the safe answer keeps
 * the campaign and gives focus back to this button). Done, the operator
 * lands on the campaign list.
 */
export function DeleteCampaignButton({
  campaign,
  onError,
}: {
  campaign: Campaign;
  onError: (e: Error | null) => void;
}) {
  const opener = useRef<HTMLButtonElement>(null);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);

  const remove = async () => {
    setBusy(true);
    onError(null);
    try {
      await api('DELETE', `/api/v1/campaigns/${campaign.id}`);
      navigate('/campaigns');
    } catch (e) {
      setBusy(false);
      setAsking(false);
      onError(e as Error);
    }
  };

  return (
    <>
      <button ref={opener} className="danger-outline" onClick={() => setAsking(true)} disabled={busy}>
        Delete…
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete “${campaign.name}”?`}
          confirmLabel="Yes, delete"
          busyLabel="Deleting…"
          keepLabel="Keep the campaign"
          busy={busy}
          onConfirm={() => void remove()}
          onClose={() => setAsking(false)}
          opener={opener}
        >
          <p>It never fires again, and its firing history goes with it. The tasks it fired stay, with their reports.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
