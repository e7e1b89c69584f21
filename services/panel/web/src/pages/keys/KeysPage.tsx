import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { currentMode, type Mode } from '../../api/mode';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { ApiKey, NewApiKey, Page } from '../../api/types';
import { useCanManage, useMeta } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { CheckboxGroup, SelectField, TextField } from '../../components/Field';
import { formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, errorText, QueryState } from '../../components/QueryState';
import { ShownOnce } from '../../components/ShownOnce';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { KeyLimitsForm } from './KeyLimitsForm';

const DAY = 86_400;
const EXPIRY_CHOICES: Array<{ label: string; seconds?: number }> = [
  { label: 'Never' },
  { label: 'In 7 days', seconds: 7 * DAY },
  { label: 'In 30 days', seconds: 30 * DAY },
  { label: 'In 90 days', seconds: 90 * DAY },
  { label: 'In 1 year', seconds: 365 * DAY },
];

function limitsText(key: ApiKey): string {
  const read = key.limits?.read;
  const write = key.limits?.write;
  if (!read && !write) return 'default';
  return `${read ?? 'default'} / ${write ?? 'default'}`;
}

function keyStatus(key: ApiKey): string {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

function CreateKeyForm({ onCreated }: { onCreated: (key: NewApiKey) => void }) {
  const meta = useMeta();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expiry, setExpiry] = useState('0');
  // A key of the mode the panel shows unless another is chosen (SPEC 13).
  const [mode, setKeyMode] = useState<Mode>(currentMode);
  const [nameError, setNameError] = useState<string>();
  const create = useMutation({
    mutationFn: () => panelApi.keys.create(name.trim(), scopes, mode, EXPIRY_CHOICES[Number(expiry)]?.seconds),
    onSuccess: (key) => {
      setName('');
      setScopes([]);
      setExpiry('0');
      setKeyMode(currentMode());
      onCreated(key);
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys() });
    },
  });
  const serverError = create.error instanceof ApiError ? create.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setNameError('Name the key, e.g. after the system that uses it.');
      return;
    }
    setNameError(undefined);
    create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <h2 id="create-key-title">Create a key</h2>
      <div className="form-grid">
        <TextField label="Name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} error={nameError ?? (serverError?.param === 'name' ? errorText(serverError) : undefined)} />
        <SelectField
          label="Mode"
          value={mode}
          onChange={(e) => setKeyMode(e.target.value === 'test' ? 'test' : 'live')}
          hint="A test key (pfx_test_) sees only test data and spends no credits."
          error={serverError?.param === 'mode' ? errorText(serverError) : undefined}
        >
          <option value="live">Live</option>
          <option value="test">Test</option>
        </SelectField>
        <SelectField label="Expires" value={expiry} onChange={(e) => setExpiry(e.target.value)} error={serverError?.param === 'expires_in' ? errorText(serverError) : undefined}>
          {EXPIRY_CHOICES.map((c, i) => (
            <option key={c.label} value={String(i)}>
              {c.label}
            </option>
          ))}
        </SelectField>
      </div>
      <CheckboxGroup legend="Scopes" options={meta.scopes} value={scopes} onChange={setScopes} hint="A key without scopes authenticates but may call nothing." />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </div>
      {create.error && !(serverError?.param === 'name' || serverError?.param === 'expires_in' || serverError?.param === 'mode') ? (
        <p className="error" role="alert">
          {errorText(create.error)}
        </p>
      ) : null}
    </form>
  );
}

export function KeysPage() {
  usePageTitle('API keys');
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<NewApiKey | null>(null);
  const [limitsOf, setLimitsOf] = useState<string | null>(null);
  const { query: list, items: keys } = usePaged<ApiKey>(queryKeys.keys(), (cursor) => panelApi.keys.list(cursor));
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.keys() });
  const revoke = useMutation({ mutationFn: panelApi.keys.revoke, onSuccess: refresh });
  const roll = useMutation({
    mutationFn: panelApi.keys.roll,
    onSuccess: (key) => {
      setShown(key);
      refresh();
    },
  });

  return (
    <>
      <div className="page-head">
        <h1>API keys</h1>
      </div>
      {canManage ? (
        <section className="card">
          {shown ? (
            <ShownOnce
              title="New key"
              value={shown.token}
              note={`The token of "${shown.name}" (${shown.mode} mode) is shown only now: copy it into the system that will call the API.`}
              onDone={() => setShown(null)}
            />
          ) : null}
          <CreateKeyForm onCreated={setShown} />
        </section>
      ) : null}
      <section className="card">
        <QueryState isPending={list.isPending} error={list.error} label="API keys">
          <ListTable
            caption="API keys"
            columns={[
              { label: 'Name', phone: 'title-wide', cellClass: () => 'wrap', cell: (k) => k.name },
              { label: 'Prefix', cell: (k) => <code>{k.prefix}</code> },
              { label: 'Scopes', cell: (k) => (k.scopes.length ? k.scopes.map((s) => <span key={s} className="scope">{s}</span>) : <span className="muted">none</span>) },
              { label: 'Status', cell: (k) => <StatusBadge status={keyStatus(k)} /> },
              { label: 'Expires', cell: (k) => (k.expires_at ? formatTime(k.expires_at) : 'never') },
              { label: 'Limits per minute, read / write', cell: (k) => limitsText(k) },
              {
                label: 'Created, last used',
                cell: (k) => (
                  <>
                    {formatTime(k.created_at)}
                    <div className="muted small">{k.last_used_at ? `used ${formatTime(k.last_used_at)}` : 'never used'}</div>
                  </>
                ),
              },
              { label: 'Mode', cell: (k) => (k.mode === 'test' ? 'Test' : 'Live') },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (k) =>
                  keyStatus(k) === 'revoked' ? null : (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`Roll key ${k.name}`}
                        disabled={roll.isPending}
                        onClick={() => {
                          if (confirmed(`Roll "${k.name}"? A new key with the same scopes is created; this one keeps working for a day.`)) roll.mutate(k.id);
                        }}
                      >
                        Roll
                      </button>
                      <button type="button" className="secondary small" aria-label={`Set limits of key ${k.name}`} onClick={() => setLimitsOf(k.id)}>
                        Limits
                      </button>
                      <button
                        type="button"
                        className="secondary danger small"
                        aria-label={`Revoke key ${k.name}`}
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (confirmed(`Revoke "${k.name}"? Calls with it fail at once.`)) revoke.mutate(k.id);
                        }}
                      >
                        Revoke
                      </button>
                    </div>
                  ),
              },
            ]}
            items={keys}
            rowKey={(k) => k.id}
            detail={(k) => (canManage && limitsOf === k.id ? <KeyLimitsForm apiKey={k} onDone={() => setLimitsOf(null)} /> : null)}
            empty="No keys yet."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={revoke.error ?? roll.error} />
      </section>
    </>
  );
}
