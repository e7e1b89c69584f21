import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { currentMode } from '../../api/mode';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import { SelectField, TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';

/** Provisioning in bulk (one credit each), from an active program of the organization. */
export function CreateAccountsForm() {
  const queryClient = useQueryClient();
  const [count, setCount] = useState('1');
  const [program, setProgram] = useState('');
  const [countError, setCountError] = useState<string>();
  const [done, setDone] = useState('');
  // Programs as data may not be served yet: then the program is typed (empty = standard).
  // Its own key under the programs prefix: the Programs page keeps an infinite query (pages) under queryKeys.programs() itself.
  const programs = useQuery({ queryKey: [...queryKeys.programs(), 'choices'], queryFn: () => panelApi.programs.list(), retry: false });
  const active = programs.data?.data.filter((p) => p.status === 'active') ?? [];
  const organization = useQuery({ queryKey: queryKeys.organization, queryFn: panelApi.organization });
  const credits = organization.data?.credits;

  const create = useMutation({
    mutationFn: () => panelApi.accounts.create(Number(count), program.trim() || undefined),
    onSuccess: (result) => {
      const numbers = result.data.map((a) => a.number);
      setDone(`${numbers.length} ${numbers.length === 1 ? 'account' : 'accounts'} created${numbers.length ? `: ${numbers.join(', ')}` : ''}.`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.accounts() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.organization });
    },
    // A refusal for want of credits means the count shown was stale.
    onError: () => void queryClient.invalidateQueries({ queryKey: queryKeys.organization }),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1 || n > 100) {
      setCountError('Enter a whole number from 1 to 100.');
      return;
    }
    setCountError(undefined);
    create.mutate();
  };
  const serverError = create.error instanceof ApiError ? create.error : undefined;

  return (
    <section className="card">
      <h2 id="create-accounts-title">Create accounts</h2>
      <p className="credits">
        Credits left: <strong>{credits === undefined ? (organization.error ? 'unknown' : '…') : credits.toLocaleString('en-US')}</strong>
        <span className="muted"> (each account spends one)</span>
      </p>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField
          label="Count"
          type="number"
          min={1}
          max={100}
          inputMode="numeric"
          value={count}
          onChange={(e) => setCount(e.target.value)}
          error={countError ?? (serverError?.param === 'count' ? errorText(serverError) : undefined)}
          hint={currentMode() === 'test' ? '1 to 100; test accounts spend no credits.' : '1 to 100; each account spends one credit.'}
        />
        {active.length > 0 ? (
          <SelectField label="Program" value={program} onChange={(e) => setProgram(e.target.value)} error={serverError?.param === 'program' ? errorText(serverError) : undefined}>
            <option value="">Default (standard)</option>
            {active.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </SelectField>
        ) : (
          <TextField
            label="Program"
            value={program}
            placeholder="standard"
            onChange={(e) => setProgram(e.target.value)}
            error={serverError?.param === 'program' ? errorText(serverError) : undefined}
            hint="Empty: standard."
          />
        )}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Create accounts
          </button>
        </div>
      </form>
      {create.error && !(serverError?.param === 'count' || serverError?.param === 'program') ? (
        <p className="error" role="alert">
          {errorText(create.error)}
        </p>
      ) : null}
      <p role="status" className="ok">
        {done}
      </p>
    </section>
  );
}
