import { useMutation } from '@tanstack/react-query';
import { panelApi } from '../../api/panel-api';
import { ErrorMessage } from '../../components/QueryState';

/** Executor credentials, fetched only when asked for and never cached. */
export function CredentialsSection({ number }: { number: number }) {
  const show = useMutation({ mutationFn: () => panelApi.accounts.credentials(number) });
  return (
    <section className="card">
      <h2 id="credentials-title">Credentials</h2>
      {show.data ? (
        <>
          <dl className="facts">
            <dt>Login</dt>
            <dd>
              <code>{show.data.login}</code>
            </dd>
            <dt>Password</dt>
            <dd>
              <code>{show.data.password}</code>
            </dd>
            <dt>Server</dt>
            <dd>
              <code>{show.data.server}</code>
            </dd>
          </dl>
          <button type="button" className="secondary" onClick={() => show.reset()}>
            Hide credentials
          </button>
        </>
      ) : (
        <button type="button" className="secondary" onClick={() => show.mutate()} disabled={show.isPending}>
          Show credentials
        </button>
      )}
      <ErrorMessage error={show.error} />
    </section>
  );
}
