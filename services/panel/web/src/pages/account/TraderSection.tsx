import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { AccountDetail } from '../../api/types';
import { confirmed } from '../../components/confirm';
import { TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';

/**
 * The account's trader. An unassigned account shows the assign form; an assigned one shows the
 * trader with Unassign and Reassign, and the form only once Reassign is chosen (a new holder
 * ends the current one's terminal sessions, so it asks first).
 */
export function TraderSection({ detail, canManage }: { detail: AccountDetail; canManage: boolean }) {
  const { account, trader } = detail;
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [missing, setMissing] = useState<{ name?: string; email?: string }>({});
  const [reassigning, setReassigning] = useState(false);
  const refresh = (next: AccountDetail) => {
    queryClient.setQueryData(queryKeys.account(account.number), next);
    void queryClient.invalidateQueries({ queryKey: queryKeys.accounts() });
  };
  const assign = useMutation({
    mutationFn: () => panelApi.accounts.assign(account.number, name.trim(), email.trim()),
    onSuccess: (next) => {
      refresh(next);
      setName('');
      setEmail('');
      setReassigning(false);
    },
  });
  const unassign = useMutation({ mutationFn: () => panelApi.accounts.unassign(account.number), onSuccess: refresh });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = { name: name.trim() ? undefined : "Enter the trader's name.", email: email.trim() ? undefined : "Enter the trader's email." };
    setMissing(problems);
    if (problems.name || problems.email) return;
    if (trader && !confirmed(`Assign account ${account.number} to ${email.trim()}? ${trader.email} loses it and their terminal sessions end.`)) return;
    assign.mutate();
  };
  const cancel = () => {
    setReassigning(false);
    setMissing({});
    assign.reset();
  };
  const assignError = assign.error instanceof ApiError ? assign.error : undefined;
  const showForm = !trader || reassigning;

  return (
    <section className="card">
      <h2 id="trader-title">Trader</h2>
      {trader ? (
        <dl className="facts">
          <dt>Name</dt>
          <dd>{trader.name}</dd>
          <dt>Email</dt>
          <dd>{trader.email}</dd>
        </dl>
      ) : (
        <p className="muted">Unassigned.</p>
      )}
      {canManage ? (
        <>
          {trader && !reassigning ? (
            <div className="toolbar">
              <button type="button" className="secondary" onClick={() => setReassigning(true)}>
                Reassign
              </button>
              <button
                type="button"
                className="secondary"
                disabled={unassign.isPending}
                onClick={() => {
                  if (confirmed(`Unassign ${trader.email} from account ${account.number}? Their terminal sessions end.`)) unassign.mutate();
                }}
              >
                Unassign
              </button>
            </div>
          ) : null}
          {unassign.error ? (
            <p className="error" role="alert">
              {errorText(unassign.error)}
            </p>
          ) : null}
          {showForm ? (
            <form id="trader-form" className="inline-form" onSubmit={submit} noValidate aria-label={trader ? 'Reassign the account' : 'Assign a trader'}>
              <TextField
                label="Trader name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                autoComplete="off"
                autoFocus={reassigning}
                error={missing.name ?? (assignError?.param === 'name' ? errorText(assignError) : undefined)}
              />
              <TextField
                label="Trader email"
                type="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                autoComplete="off"
                error={missing.email ?? (assignError?.param === 'email' ? errorText(assignError) : undefined)}
              />
              <div className="actions">
                <button type="submit" disabled={assign.isPending}>
                  {trader ? 'Reassign' : 'Assign'}
                </button>
                {trader ? (
                  <button type="button" className="secondary" onClick={cancel}>
                    Cancel
                  </button>
                ) : null}
              </div>
            </form>
          ) : null}
          {assign.error && !(assignError?.param === 'name' || assignError?.param === 'email') ? (
            <p className="error" role="alert">
              {errorText(assign.error)}
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
