import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Program } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { formatMoney, formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { draftOf, type ProgramDraft } from './program-form';
import { ProgramForm } from './ProgramForm';

export function ProgramsPage() {
  usePageTitle('Programs');
  const canManage = useCanManage();
  const [form, setForm] = useState<{ editing?: string; initial?: ProgramDraft; key: number } | null>(null);
  const { query: list, items: programs } = usePaged<Program>(queryKeys.programs(), (cursor) => panelApi.programs.list(cursor), { retry: false });
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: panelApi.programs.archive,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.programs() }),
  });

  return (
    <>
      <div className="page-head">
        <h1>Programs</h1>
        {canManage && !form ? (
          <button type="button" onClick={() => setForm({ key: Date.now() })}>
            New program
          </button>
        ) : null}
      </div>
      {form ? <ProgramForm key={form.key} editing={form.editing} initial={form.initial} onDone={() => setForm(null)} /> : null}
      <section className="card">
        {list.error instanceof ApiError && list.error.code === 'unavailable' && list.error.status === 503 ? (
          <p className="notice" role="status">
            Programs can&apos;t be listed yet: {list.error.message}. New accounts use the built-in programs.
          </p>
        ) : null}
        <QueryState isPending={list.isPending} error={list.error instanceof ApiError && list.error.status === 503 ? null : list.error} label="Programs">
          <ListTable
            caption="Programs"
            columns={[{ label: 'Name' }, { label: 'Version' }, { label: 'Status' }, { label: 'Phases' }, { label: 'Initial balance', num: true }, { label: 'Updated' }, canManage && { label: 'Actions' }]}
            items={programs}
            empty="No programs."
            row={(p) => (
              <tr key={p.name}>
                <td>
                  {p.name}
                  {p.builtin ? <span className="muted"> (built-in)</span> : null}
                  {p.description ? <div className="muted small">{p.description}</div> : null}
                </td>
                <td>{p.version}</td>
                <td>
                  <StatusBadge status={p.status} />
                </td>
                <td className="wrap">{p.phases.map((ph) => `${ph.name} (${ph.kind})`).join(' → ')}</td>
                <td className="num">{formatMoney(p.initial_balance)}</td>
                <td>{formatTime(p.created_at)}</td>
                {canManage ? (
                  <td>
                    {p.builtin ? null : (
                      <div className="row-actions">
                        <button type="button" className="secondary small" aria-label={`Edit program ${p.name}`} onClick={() => setForm({ editing: p.name, initial: draftOf(p), key: Date.now() })}>
                          Edit
                        </button>
                        {p.status === 'active' ? (
                          <button
                            type="button"
                            className="secondary danger small"
                            aria-label={`Archive program ${p.name}`}
                            onClick={() => {
                              if (confirmed(`Archive ${p.name}? No new accounts can be created from it; issued accounts keep their terms.`)) archive.mutate(p.name);
                            }}
                          >
                            Archive
                          </button>
                        ) : null}
                      </div>
                    )}
                  </td>
                ) : null}
              </tr>
            )}
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={archive.error} />
      </section>
    </>
  );
}
