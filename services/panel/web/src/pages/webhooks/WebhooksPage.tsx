import { useMutation, useQueryClient } from '@tanstack/react-query';
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
import { RegisterWebhookForm } from './RegisterWebhookForm';

export const eventsText = (events: string[]): string => (events.length === 0 ? 'every event type' : events.join(', '));

export function WebhooksPage() {
  usePageTitle('Webhooks');
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const { query: list, items: endpoints } = usePaged<Webhook>(queryKeys.webhooks(), (cursor) => panelApi.webhooks.list(cursor));
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
  const enable = useMutation({ mutationFn: panelApi.webhooks.enable, onSuccess: refresh });
  const remove = useMutation({ mutationFn: panelApi.webhooks.remove, onSuccess: refresh });

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
              { label: 'URL', phone: 'title-wide', cellClass: () => 'wrap', cell: (w) => <Link to={`/webhooks/${w.id}`}>{w.url}</Link> },
              { label: 'Events', phone: 'wide', cellClass: () => 'wrap', cell: (w) => eventsText(w.events) },
              { label: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
              { label: 'Registered', cell: (w) => formatTime(w.created_at) },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (w) => (
                  <div className="row-actions">
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
            empty="No endpoints registered."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
        <ErrorMessage error={enable.error ?? remove.error} />
      </section>
    </>
  );
}
