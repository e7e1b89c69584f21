import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Page, Program } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { formatMoney, formatTime } from '../../components/format';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { draftOf, type ProgramDraft } from './program-form';
import { ProgramForm } from './ProgramForm';

export function ProgramsPage() {
  usePageTitle('Programs');
  const canManage = useCanManage();
  const [form, setForm] = useState<{ editing?: string; initial?: ProgramDraft; key: number } | null>(null);
  const list = useInfiniteQuery({
    queryKey: queryKeys.programs,
    queryFn: ({ pageParam }) => panelApi.programs.list(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: Page<Program>) => last.next_cursor ?? undefined,
    retry: false,
  });
  const programs = list.data?.pages.flatMap((p) => p.data) ?? [];
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: panelApi.programs.archive,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.programs }),
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
          <div className="table-scroll">
            <table className="list">
              <caption>Programs</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Version</th>
                  <th scope="col">Status</th>
                  <th scope="col">Phases</th>
                  <th scope="col" className="num">
                    Initial balance
                  </th>
                  <th scope="col">Updated</th>
                  {canManage ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {programs.map((p) => (
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
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={archive.error} />
      </section>
    </>
  );
}
