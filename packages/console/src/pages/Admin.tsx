import { Empty } from '../components/bits';
import { useTitle } from '../hooks';
import { useSession } from '../session';
import { AuditPanel } from './admin/AuditPanel';
import { BlacklistsPanel } from './admin/BlacklistsPanel';
import { LimitsPanel } from './admin/LimitsPanel';
import { LocalTimeDefaultsPanel } from './admin/LocalTimeDefaultsPanel';
import { TokensPanel } from './admin/TokensPanel';

/** Administration: tokens, accounts' limits and local-time defaults, blacklists, the audit log. Admin-only, as the API is. */
export function Admin() {
  useTitle('Administration');
  const { me, openServer } = useSession();
  if (me.role !== 'admin' || openServer)
    return (
      <section>
        <h1>Administration</h1>
        <Empty>
          {openServer
            ? 'This Herald runs without sign-in: it has no tokens or audit log to administer.'
            : 'Only an admin token administers Herald.'}
        </Empty>
      </section>
    );
  return (
    <section className="admin">
      <h1>Administration</h1>
      <TokensPanel />
      <LimitsPanel />
      <LocalTimeDefaultsPanel />
      <BlacklistsPanel />
      <AuditPanel />
    </section>
  );
}
