import { useRef, useState } from 'react';
import { api, download } from '../../api/client';
import type { Blacklist } from '../../api/admin-types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/bits';
import { ListUpload } from '../../components/ListUpload';
import { usePoll } from '../../hooks';
import { fmtInt, fmtTime } from '../../lib/format';
import { useSession } from '../../session';

/**
 * Blacklists (docs/api.md, "Blacklists"): the global one, and the one of
 * the account chosen in the top bar. Each shows how many recipients it
 * holds and when it changed, and is replaced by uploading a file (checked as
 * a new list is: bad lines named by number), downloaded as CSV, or cleared
 * after a confirm.
 */
export function BlacklistsPanel() {
  const { account } = useSession();
  return (
    <section aria-labelledby="blacklists-heading">
      <h2 id="blacklists-heading">Blacklists</h2>
      <p className="muted small">
        Tasks pre-processed after a change leave out the recipients listed; tasks already sending keep their audience.
      </p>
      <div className="blacklists">
        <BlacklistCard title="Global blacklist" path="/api/v1/blacklists/global" slug="global" accountId="global" />
        {account === '' ? (
          <p className="muted" data-blacklist="account">
            Pick an account in the top bar to see its blacklist.
          </p>
        ) : (
          <BlacklistCard
            key={account}
            title={`Blacklist of ${account}`}
            path={`/api/v1/accounts/${encodeURIComponent(account)}/blacklist`}
            slug={account}
            accountId={account}
          />
        )}
      </div>
    </section>
  );
}

function BlacklistCard({
  title,
  path,
  slug,
  accountId,
}: {
  title: string;
  path: string;
  /** Names the download and the card's controls. */
  slug: string;
  accountId: string;
}) {
  const { data, error, reload } = usePoll<Blacklist>((signal) => api('GET', path, undefined, signal), [path]);
  const [actionError, setActionError] = useState<Error | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [clearing, setClearing] = useState(false);
  const clearButton = useRef<HTMLButtonElement>(null);
  const headingId = `blacklist-${slug}-heading`;

  const clear = async () => {
    setClearing(true);
    setActionError(null);
    try {
      await api('DELETE', path);
      reload();
    } catch (e) {
      setActionError(e as Error);
    } finally {
      setClearing(false);
      setConfirming(false);
    }
  };

  return (
    <article className="blacklist card" aria-labelledby={headingId} data-blacklist={data?.scope}>
      <h3 id={headingId}>{title}</h3>
      <ErrorBanner error={error ?? actionError} />
      {data && (
        <p data-blacklist-summary>
          {data.count === 0 ? (
            'Empty'
          ) : (
            <strong>
              {fmtInt(data.count)} {data.count === 1 ? 'recipient' : 'recipients'}
            </strong>
          )}
          {' · '}
          {data.updatedAt === null
            ? 'never changed'
            : `${data.count === 0 ? 'cleared' : 'replaced'} ${fmtTime(data.updatedAt)}`}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          disabled={data === undefined}
          onClick={() => {
            setActionError(null);
            download(`${path}?download=true`, `blacklist-${slug}.csv`).catch((e: Error) => setActionError(e));
          }}
        >
          Download CSV
        </button>
        <button
          ref={clearButton}
          type="button"
          className="danger"
          disabled={data === undefined || data.count === 0}
          onClick={() => setConfirming(true)}
        >
          Clear
        </button>
      </div>
      <div className="blacklist-upload">
        <span className="small muted">Replace with a file (CSV, text or binary list):</span>
        <ListUpload
          accountId={accountId}
          destination={path}
          inputId={`blacklist-${slug}-file`}
          label={`Replace the ${title.toLowerCase()} with a file`}
          onUploaded={(list) => list && reload()}
        />
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Clear the ${title.toLowerCase()}?`}
          confirmLabel="Yes, clear it"
          busyLabel="Clearing…"
          keepLabel="Keep it"
          busy={clearing}
          onConfirm={() => void clear()}
          onClose={() => setConfirming(false)}
          opener={clearButton}
        >
          <p>
            Its {fmtInt(data?.count ?? 0)} recipients will receive the broadcasts pre-processed from now on. Download it
            first to keep a copy.
          </p>
        </ConfirmDialog>
      )}
    </article>
  );
}
