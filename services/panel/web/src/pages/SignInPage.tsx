import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError, panelApi, queryKeys } from '../api/panel-api';
import { useSession } from '../app/session';
import { TextField } from '../components/Field';
import { errorText } from '../components/QueryState';
import { usePageTitle } from '../components/usePageTitle';

/** Only same-site page paths are followed after signing in (no open redirect). */
function safeNext(next: string | null): string {
  return next && /^\/(?!\/)[\w\-/?=&%.]*$/.test(next) && !next.startsWith('/sign-in') ? next : '/accounts';
}

export function SignInPage() {
  usePageTitle('Sign in');
  const session = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState<{ email?: string; password?: string }>({});
  const next = safeNext(params.get('next'));
  const login = useMutation({
    mutationFn: () => panelApi.login(email.trim(), password),
    onSuccess: ({ user }) => {
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, user);
      void navigate(next, { replace: true });
    },
  });

  if (session.data && !login.isPending) return <Navigate to={next} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = { email: email.trim() ? undefined : 'Enter your email.', password: password ? undefined : 'Enter your password.' };
    setMissing(problems);
    if (problems.email || problems.password) return;
    login.mutate();
  };
  const failure =
    login.error instanceof ApiError && login.error.code === 'invalid_credentials'
      ? 'Wrong email or password.'
      : login.error
        ? errorText(login.error)
        : undefined;

  return (
    <main className="signin">
      <section className="card narrow">
        <p className="brand-dark">
          PropDesk <span className="muted">panel</span>
        </p>
        <h1>Sign in</h1>
        <form onSubmit={submit} noValidate>
          <TextField label="Email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={missing.email} />
          <TextField
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={missing.password}
          />
          {failure ? (
            <p className="error" role="alert">
              {failure}
            </p>
          ) : null}
          <button type="submit" disabled={login.isPending}>
            Sign in
          </button>
        </form>
      </section>
    </main>
  );
}
