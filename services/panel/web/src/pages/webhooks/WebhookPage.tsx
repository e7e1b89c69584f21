import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Delivery } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { ShownOnce } from '../../components/ShownOnce';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { NotFoundPage } from '../NotFoundPage';
import { EditWebhookForm } from './EditWebhookForm';
import { RecoverWebhookForm } from './RecoverWebhookForm';
import { eventsText, recoveredText, savedText } from './WebhooksPage';

const POLL_WHILE_PENDING_MS = 2000;

function responseText(d: Delivery): string {
  if (d.response_status !== null) return `HTTP ${d.response_status}${d.error ? ` — ${d.error}` : ''}`;
  if (d.error) return d.error;
  return d.attempt === 0 ? 'not attempted yet' : '—';
}

/** One endpoint: its settings, the staff's actions, and its deliveries with Retry. */
export function WebhookPage() {
  const { id = '' } = useParams();
  usePageTitle('Webhook');
  const canManage = useCanManage();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState('');
  const [open, setOpen] = useState<'edit' | 'recover' | null>(null);
  const endpoint = useQuery({ queryKey: queryKeys.webhook(id), queryFn: () => panelApi.webhooks.get(id) });
  // While a delivery is on its way, watch it land.
  const { query: deliveries, items } = usePaged<Delivery>([...queryKeys.webhook(id), 'deliveries'], (cursor) => panelApi.webhooks.deliveries(id, cursor), {
    pollWhile: (loaded) => (loaded.some((d) => d.status === 'pending') ? POLL_WHILE_PENDING_MS : false),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.webhook(id) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
  };
  const sendTest = useMutation({
    mutationFn: () => panelApi.webhooks.sendTest(id),
    onSuccess: (r) => {
      setNotice(`Test event ${r.event_id} queued.`);
      refresh();
    },
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) => panelApi.webhooks.retry(id, deliveryId),
    onSuccess: () => {
      setNotice('Delivery queued again.');
      refresh();
    },
  });
  const enable = useMutation({ mutationFn: () => panelApi.webhooks.enable(id), onSuccess: refresh });
  const rotate = useMutation({ mutationFn: () => panelApi.webhooks.rotateSecret(id) });
  const remove = useMutation({
    mutationFn: () => panelApi.webhooks.remove(id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
      void navigate('/webhooks');
    },
  });

  if (endpoint.error instanceof ApiError && endpoint.error.status === 404) return <NotFoundPage />;
  const w = endpoint.data;
  const failure = sendTest.error ?? retry.error ?? enable.error ?? rotate.error ?? remove.error;

  return (
    <>
      <div className="page-head">
        <p className="crumbs">
          <Link to="/webhooks">Webhooks</Link>
        </p>
        <h1>Webhook endpoint</h1>
      </div>
      <section className="card">
        <QueryState isPending={endpoint.isPending} error={endpoint.error} label="The endpoint">
          {w ? (
            <dl className="facts">
              <dt>URL</dt>
              <dd className="wrap">{w.url}</dd>
              <dt>Description</dt>
              <dd className="wrap">{w.description ?? <span className="muted">none</span>}</dd>
              <dt>Events</dt>
              <dd>{eventsText(w.events)}</dd>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={w.status} />
              </dd>
              <dt>Registered</dt>
              <dd>{formatTime(w.created_at)}</dd>
            </dl>
          ) : null}
        </QueryState>
        {canManage && w ? (
          <div className="toolbar">
            <button type="button" onClick={() => sendTest.mutate()} disabled={sendTest.isPending}>
              Send test event
            </button>
            <button type="button" className="secondary" aria-expanded={open === 'edit'} onClick={() => setOpen(open === 'edit' ? null : 'edit')}>
              Edit
            </button>
            <button
              type="button"
              className="secondary"
              aria-label="Recover failed deliveries"
              aria-expanded={open === 'recover'}
              onClick={() => setOpen(open === 'recover' ? null : 'recover')}
            >
              Recover
            </button>
            {w.status === 'disabled' ? (
              <button type="button" className="secondary" onClick={() => enable.mutate()} disabled={enable.isPending}>
                Enable
              </button>
            ) : null}
            <button
              type="button"
              className="secondary"
              disabled={rotate.isPending}
              onClick={() => {
                if (confirmed('Rotate the signing secret? The previous secret keeps signing beside the new one for a day.')) rotate.mutate();
              }}
            >
              Rotate secret
            </button>
            <button
              type="button"
              className="secondary danger"
              disabled={remove.isPending}
              onClick={() => {
                if (confirmed(`Delete the endpoint ${w.url}? It stops receiving events.`)) remove.mutate();
              }}
            >
              Delete
            </button>
          </div>
        ) : null}
        {canManage && w && open === 'edit' ? (
          <EditWebhookForm
            webhook={w}
            onDone={(saved) => {
              setOpen(null);
              if (saved) setNotice(savedText(saved.warnings));
            }}
          />
        ) : null}
        {canManage && w && open === 'recover' ? (
          <RecoverWebhookForm
            webhook={w}
            onDone={(redelivered) => {
              setOpen(null);
              if (redelivered !== undefined) setNotice(recoveredText(redelivered));
            }}
          />
        ) : null}
        {rotate.data ? (
          <ShownOnce title="New signing secret" value={rotate.data.secret} note="The new secret is shown only now." onDone={() => rotate.reset()} />
        ) : null}
        <ErrorMessage error={failure} />
        <p role="status" className="ok">
          {notice}
        </p>
      </section>
      <section className="card">
        <QueryState isPending={deliveries.isPending} error={deliveries.error} label="Deliveries">
          <ListTable
            caption="Deliveries"
            columns={[
              { label: 'Created', cell: (d) => formatTime(d.created_at) },
              {
                label: 'Event',
                phone: 'title-wide',
                cell: (d) => (
                  <>
                    {d.event_type}
                    <div className="muted small">{d.event_id}</div>
                  </>
                ),
              },
              { label: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
              { label: 'Response', phone: 'wide', cellClass: () => 'wrap', cell: (d) => responseText(d) },
              { label: 'Attempts', num: true, cell: (d) => d.attempt },
              { label: 'Duration', num: true, cell: (d) => (d.duration_ms === null ? '—' : `${d.duration_ms} ms`) },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (d) => (
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Retry delivery of ${d.event_type} ${d.event_id}`}
                    disabled={retry.isPending}
                    onClick={() => retry.mutate(d.id)}
                  >
                    Retry
                  </button>
                ),
              },
            ]}
            items={items}
            rowKey={(d) => d.id}
            empty="No deliveries yet."
          />
          <LoadMore hasNextPage={deliveries.hasNextPage} isFetchingNextPage={deliveries.isFetchingNextPage} fetchNextPage={deliveries.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
