import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { AuditEntry, AuditFilter } from '../../api/types';
import { useCanManage } from '../../app/session';
import { TextField } from '../../components/Field';
import { formatTimeSeconds } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { actorText, Changes } from './audit-text';

const FILTERS = [
  { name: 'action', label: 'Action', hint: 'e.g. account.archive' },
  { name: 'target_type', label: 'Target type', hint: 'e.g. account, api_key, webhook' },
  { name: 'target_id', label: 'Target id', hint: "an account's number, a program's name, an id" },
  { name: 'actor_id', label: 'Actor id', hint: "a key's or a user's id, or cli" },
] as const;

type FilterName = (typeof FILTERS)[number]['name'];

function filterOf(params: URLSearchParams): AuditFilter {
  const filter: AuditFilter = {};
  for (const { name } of FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filter[name] = value;
  }
  return filter;
}

/** What was changed, linked where the panel has a page for it. */
function Target({ entry }: { entry: AuditEntry }) {
  const { type, id } = entry.target;
  if (type === 'account') return <Link to={`/accounts/${encodeURIComponent(id)}`}>Account {id}</Link>;
  if (type === 'webhook') return <Link to={`/webhooks/${encodeURIComponent(id)}`}>Webhook {id}</Link>;
  return (
    <>
      {type} <span className="muted small">{id}</span>
    </>
  );
}

function AuditLog() {
  const [params, setParams] = useSearchParams();
  const filter = filterOf(params);
  const [draft, setDraft] = useState<Record<FilterName, string>>(() => ({ action: '', target_type: '', target_id: '', actor_id: '', ...filter }));
  const { query: list, items } = usePaged<AuditEntry>(queryKeys.audit(filter), (cursor) => panelApi.audit.list(filter, cursor));

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    for (const { name } of FILTERS) if (draft[name].trim()) next[name] = draft[name].trim();
    setParams(next, { replace: true });
  };

  return (
    <section className="card">
      <form className="filters" onSubmit={apply} aria-label="Audit log filters">
        {FILTERS.map(({ name, label, hint }) => (
          <TextField key={name} label={label} hint={hint} value={draft[name]} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
        ))}
        <button type="submit">Apply filters</button>
      </form>
      <QueryState isPending={list.isPending} error={list.error} label="The audit log">
        <ListTable
          caption="Audit log"
          columns={[
            { label: 'When', cell: (e) => formatTimeSeconds(e.created_at) },
            { label: 'Action', phone: 'title', cell: (e) => e.action },
            { label: 'Target', cell: (e) => <Target entry={e} /> },
            { label: 'Actor', cell: (e) => actorText(e.actor) },
            {
              label: 'Request',
              cell: (e) => (
                <>
                  <span className="small">{e.request_id ?? '—'}</span>
                  <div className="muted small">{e.ip ?? 'no address'}</div>
                </>
              ),
            },
            { label: 'Changes', phone: 'wide', cell: (e) => <Changes entry={e} /> },
          ]}
          items={items}
          rowKey={(e) => e.id}
          empty="No changes recorded."
        />
        <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
      </QueryState>
    </section>
  );
}

/** SPEC 14: every change made through the API, the panel or the CLI, newest first; for owners and admins. */
export function AuditLogPage() {
  usePageTitle('Audit log');
  const canManage = useCanManage();
  return (
    <>
      <div className="page-head">
        <h1>Audit log</h1>
      </div>
      {canManage ? (
        <AuditLog />
      ) : (
        <section className="card">
          <p>The audit log is for owners and admins.</p>
        </section>
      )}
    </>
  );
}
