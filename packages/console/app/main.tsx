import '@picocss/pico/css/pico.min.css';
import './styles.css';
import { render } from 'preact';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { apiKey } from './api';
import { AgentsPage } from './pages/agents';
import { Layout } from './components/layout';
import { AskPage } from './pages/ask';
import { DocumentsPage } from './pages/documents';
import { MemoryPage } from './pages/memory';
import { NotFoundPage } from './pages/not-found';
import { SessionPage } from './pages/session';
import { SessionsPage } from './pages/sessions';
import { SignInPage } from './pages/sign-in';

/** Signed out: every page is the sign-in page, which comes back to where the person was going. */
function App() {
  const { path } = useLocation();
  useEffect(() => {
    document.getElementById('main')?.focus();
  }, [path]);
  if (apiKey.value === undefined) return <SignInPage />;
  return (
    <Layout>
      <Router>
        <Route path="/console" component={SessionsPage} />
        <Route path="/console/" component={SessionsPage} />
        <Route path="/console/sessions" component={SessionsPage} />
        <Route path="/console/sessions/:id" component={SessionPage} />
        <Route path="/console/ask" component={AskPage} />
        <Route path="/console/documents" component={DocumentsPage} />
        <Route path="/console/memory" component={MemoryPage} />
        <Route path="/console/agents" component={AgentsPage} />
        <Route default component={NotFoundPage} />
      </Router>
    </Layout>
  );
}

const root = document.getElementById('app');
if (root !== null) {
  render(
    <LocationProvider>
      <App />
    </LocationProvider>,
    root,
  );
}
