import { Admin } from './pages/Admin';
import { ErrorBoundary } from './components/ErrorBoundary';
import { Layout } from './components/Layout';
import { Campaigns } from './pages/Campaigns';
import { CampaignPage } from './pages/CampaignPage';
import { Cluster } from './pages/Cluster';
import { NewBroadcast } from './pages/NewBroadcast';
import { NewCampaign } from './pages/NewCampaign';
import { RecipientPage } from './pages/RecipientPage';
import { SignIn } from './pages/SignIn';
import { TaskPage } from './pages/TaskPage';
import { Tasks } from './pages/Tasks';
import { match, useLocation } from './router';
import { SessionProvider } from './session';

function Page() {
  const { path } = useLocation();
  let params: Record<string, string> | null;
  if (path === '/' || path === '/tasks') return <Tasks />;
  if ((params = match('/tasks/:id', path))) return <TaskPage key={params.id} id={params.id!} />;
  if (path === '/new') return <NewBroadcast />;
  if (path === '/campaigns') return <Campaigns />;
  if (path === '/campaigns/new') return <NewCampaign />;
  if ((params = match('/campaigns/:id', path))) return <CampaignPage key={params.id} id={params.id!} />;
  if ((params = match('/recipients/:uin', path))) return <RecipientPage key={params.uin} uin={params.uin!} />;
  if (path === '/cluster') return <Cluster />;
  if (path === '/admin') return <Admin />;
  return <p className="muted">No page at {path}.</p>;
}

function PageInBoundary() {
  const { path } = useLocation();
  return (
    <ErrorBoundary resetKey={path}>
      <Page />
    </ErrorBoundary>
  );
}

export function App() {
  return (
    <SessionProvider signIn={(onSignedIn, ended) => <SignIn onSignedIn={onSignedIn} ended={ended} />}>
      <Layout>
        <PageInBoundary />
      </Layout>
    </SessionProvider>
  );
}
