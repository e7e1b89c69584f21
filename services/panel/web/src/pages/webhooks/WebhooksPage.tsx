import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Webhook } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { EditWebhookForm } from './EditWebhookForm';
import { RecoverWebhookForm } from './RecoverWebhookForm';
import { RegisterWebhookForm } from './RegisterWebhookForm';

export const eventsText = (events: string[]): string => (events.length === 0 ? 'every event type' : events.join(', '));

/** What an endpoint's Edit or Recover said once done: registration's warnings, or how many deliveries were queued. */
export const recoveredText = (redelivered: number): string =>
  redelivered === 1 ? '1 failed delivery queued again.' : `${redelivered} failed deliveries queued again.`;
export const savedText = (warnings: string[]): string => ['Endpoint saved.', ...warnings.map((w) => `Note: ${w}.`)].join(' ');

/** The form open under a row (one at a time). */
type OpenForm = { id: string; form: 'edit' | 'recover' } | null;

export function WebhooksPage() {
  usePageTitle('Webhooks');
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const { query: list, items: endpoints } = usePaged<Webhook>(queryKeys.webhooks(), (cursor) => panelApi.webhooks.list(cursor));
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
  const enable = useMutation({ mutationFn: panelApi.webhooks.enable, onSuccess: refresh });
  const remove = useMutation({ mutationFn: panelApi.webhooks.remove, onSuccess: refresh });
  const [open, setOpen] = useState<OpenForm>(null);
  const [notice, setNotice] = useState('');
  const toggle = (id: string, form: 'edit' | 'recover') => {
    setNotice('');
    setOpen(open?.id === id && open.form === form ? null : { id, form });
  };

  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
      </div>
      {canManage ? <RegisterWebhookForm /> : null}
      <section className="card">
        <QueryState isPending={list.isPending} error={list.error} label="Webhooks">
          <ListTable
            caption="Webhooks"
            columns={[
              {
                label: 'URL',
                phone: 'title-wide',
                cellClass: () => 'wrap',
                cell: (w) => (
                  <>
                    <Link to={`/webhooks/${w.id}`}>{w.url}</Link>
                    {w.description ? <div className="muted small">{w.description}</div> : null}
                  </>
                ),
              },
              { label: 'Events', phone: 'wide', cellClass: () => 'wrap', cell: (w) => eventsText(w.events) },
              { label: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
              { label: 'Registered', cell: (w) => formatTime(w.created_at) },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (w) => (
                  <div className="row-actions">
                    <button type="button" className="secondary small" aria-label={`Edit ${w.url}`} aria-expanded={open?.id === w.id && open.form === 'edit'} onClick={() => toggle(w.id, 'edit')}>
                      Edit
                    </button>
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={`Recover failed deliveries of ${w.url}`}
                      aria-expanded={open?.id === w.id && open.form === 'recover'}
                      onClick={() => toggle(w.id, 'recover')}
                    >
                      Recover
                    </button>
                    {w.status === 'disabled' ? (
                      <button type="button" className="secondary small" aria-label={`Enable ${w.url}`} onClick={() => enable.mutate(w.id)}>
                        Enable
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className="secondary danger small"
                      aria-label={`Delete ${w.url}`}
                      onClick={() => {
                        if (confirmed(`Delete the endpoint ${w.url}? It stops receiving events.`)) remove.mutate(w.id);
                      }}
                    >
                      Delete
                    </button>
                  </div>
                ),
              },
            ]}
            items={endpoints}
            rowKey={(w) => w.id}
            detail={(w) => {
              if (!canManage || open?.id !== w.id) return null;
              const close = (said?: string) => {
                setOpen(null);
                if (said) setNotice(said);
              };
              return open.form === 'edit' ? (
                <EditWebhookForm webhook={w} onDone={(saved) => close(saved && savedText(saved.warnings))} />
              ) : (
                <RecoverWebhookForm webhook={w} onDone={(redelivered) => close(redelivered === undefined ? undefined : recoveredText(redelivered))} />
              );
            }}
            empty="No endpoints registered."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={enable.error ?? remove.error} />
        <p role="status" className="ok">
          {notice}
        </p>
      </section>
    </>
  );
}
