import type { MouseEvent, ReactNode } from 'react';
import { Link, useLocation } from '../router';
import { useSession } from '../session';
import { AccountPicker } from './AccountPicker';
import { RecipientSearch } from './RecipientSearch';

const NAV = [
  { to: '/tasks', label: 'Tasks', prefix: ['/tasks', '/'] },
  { to: '/new', label: 'New broadcast', prefix: ['/new'] },
  { to: '/campaigns', label: 'Campaigns', prefix: ['/campaigns'] },
  { to: '/cluster', label: 'Cluster', prefix: ['/cluster'] },
];

export function Layout({ children }: { children: ReactNode }) {
  const { path } = useLocation();
  const { me, openServer, signOut } = useSession();
  const active = (prefix: string[]) =>
    prefix.some((p) => (p === '/' ? path === '/' : path === p || path.startsWith(p + '/')));
  return (
    <div className="app">
      <a className="skip-link" href="#content" onClick={skipToContent}>
        Skip to the content
      </a>
      <header className="topbar">
        <Link to="/tasks" className="brand">
          Herald
        </Link>
        <nav>
          {NAV.map((item) => (
            <Link key={item.to} to={item.to} className={active(item.prefix) ? 'active' : undefined}>
              {item.label}
            </Link>
          ))}
          {me.role === 'admin' && !openServer && (
            <Link to="/admin" className={active(['/admin']) ? 'active' : undefined}>
              Admin
            </Link>
          )}
        </nav>
        <div className="spacer" />
        <a
          href="/api/docs"
          target="_blank"
          rel="noreferrer"
          className="docs-link"
          title="The HTTP API reference (OpenAPI)"
        >
          API docs
        </a>
        <RecipientSearch />
        <AccountPicker />
        <span className="who" title={openServer ? 'This server runs without sign-in' : `token ${me.tokenId}`}>
          {me.name} <span className="role">{me.role}</span>
        </span>
        <button className="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/**
 * Moves focus into the page past the top bar. Focus is moved by hand: the
 * fragment alone would change the address, which the router would see as
 * a navigation.
 */
function skipToContent(event: MouseEvent<HTMLAnchorElement>) {
  event.preventDefault();
  document.getElementById('content')?.focus();
}
