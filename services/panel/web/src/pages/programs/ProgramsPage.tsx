import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Program } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { formatAmount, formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { phaseName } from '../accounts/account-text';
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
            columns={[
              {
                label: 'Name',
                phone: 'title-wide',
                cell: (p) => (
                  <>
                    {p.name}
                    {p.builtin ? <span className="muted"> (built-in)</span> : null}
                    {p.description ? <div className="muted small description">{p.description}</div> : null}
                  </>
                ),
              },
              { label: 'Version', cell: (p) => p.version },
              { label: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
              { label: 'Phases', phone: 'wide', cellClass: () => 'wrap', cell: (p) => p.phases.map(phaseName).join(' → ') },
              { label: 'Initial balance', num: true, cell: (p) => formatAmount(p.initial_balance, p.currency) },
              { label: 'Updated', cell: (p) => formatTime(p.created_at) },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (p) =>
                  p.builtin ? null : (
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
                  ),
              },
            ]}
            items={programs}
            rowKey={(p) => p.name}
            empty="No programs."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={archive.error} />
      </section>
    </>
  );
}
