import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { setMode, useMode } from '../api/mode';
import { canManage, panelApi, queryKeys } from '../api/panel-api';
import { ErrorMessage } from '../components/QueryState';
import { useSession } from './session';

const SECTIONS = [
  { to: '/accounts', label: 'Accounts' },
  { to: '/payouts', label: 'Payouts' },
  { to: '/programs', label: 'Programs' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/events', label: 'Events' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/team', label: 'Team' },
  // SPEC 14: owners and admins only (the panel API refuses the others).
  { to: '/audit', label: 'Audit log', managers: true },
];

/**
 * SPEC 13: the "Test mode" switch, in the navigation. On, every page shows the organization's
 * test partition (the panel API is asked in test mode, and cached answers are keyed by it).
 */
function TestModeSwitch() {
  const mode = useMode();
  const on = mode === 'test';
  return (
    <button type="button" role="switch" aria-checked={on} className={`mode-switch${on ? ' on' : ''}`} onClick={() => setMode(on ? 'live' : 'test')}>
      <span className="mode-track" aria-hidden="true">
        <span className="mode-thumb" />
      </span>
      Test mode
    </button>
  );
}

/** The frame of every signed-in page: who is signed in, the navigation landmark (with the test-mode switch), the page. */
export function Layout() {
  const mode = useMode();
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: panelApi.logout,
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, null);
      void navigate('/sign-in');
    },
  });

  if (session.isPending) {
    return (
      <p className="boot muted" role="status">
        Loading…
      </p>
    );
  }
  if (session.error) {
    return (
      <main className="boot">
        <ErrorMessage error={session.error}>The panel could not be loaded: </ErrorMessage>
      </main>
    );
  }
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  const user = session.data;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          PropDesk <span className="brand-muted">panel</span>
        </span>
        <div className="whoami">
          <span>
            {user.email} <span className="role">({user.role})</span>
          </span>
          <button type="button" className="secondary on-dark" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="mainnav" aria-label="Main">
        <ul>
          {SECTIONS.filter((s) => !('managers' in s) || canManage(user.role)).map((s) => (
            <li key={s.to}>
              <NavLink to={s.to}>{s.label}</NavLink>
            </li>
          ))}
          <li className="mode-item">
            <TestModeSwitch />
          </li>
        </ul>
      </nav>
      {mode === 'test' ? (
        <div className="mode-banner" role="status">
          Test mode
        </div>
      ) : null}
      <main id="main" tabIndex={-1} className={mode === 'test' ? 'test-mode' : undefined}>
        {/* A new mode is a new page: forms and lists start again in the other partition. */}
        <Outlet key={mode} />
      </main>
    </div>
  );
}
