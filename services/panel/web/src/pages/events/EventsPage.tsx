import { Link, useSearchParams } from 'react-router';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { PanelEvent } from '../../api/types';
import { useMeta } from '../../app/session';
import { SelectField } from '../../components/Field';
import { formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';

/** The event feed, filtered by type (kept in the URL); each event's data is readable as JSON text. */
export function EventsPage() {
  usePageTitle('Events');
  const meta = useMeta();
  const [params, setParams] = useSearchParams();
  const type = params.get('type') ?? '';
  const { query: list, items: events } = usePaged<PanelEvent>(queryKeys.events(type), (cursor) => panelApi.events.list(type, cursor));

  return (
    <>
      <div className="page-head">
        <h1>Events</h1>
      </div>
      <section className="card">
        <form className="filters" onSubmit={(e) => e.preventDefault()}>
          <SelectField label="Type" value={type} onChange={(e) => setParams(e.target.value ? { type: e.target.value } : {}, { replace: true })}>
            <option value="">All types</option>
            {meta.event_types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
        </form>
        <QueryState isPending={list.isPending} error={list.error} label="Events">
          <ListTable
            caption="Events"
            columns={[
              { label: 'When', cell: (e) => formatTime(e.created_at) },
              {
                label: 'Type',
                phone: 'title-wide',
                cell: (e) => (
                  <>
                    {e.type}
                    <div className="muted small">{e.id}</div>
                  </>
                ),
              },
              {
                label: 'Account',
                cell: (e) => {
                  const account = typeof e.data.account === 'number' ? e.data.account : undefined;
                  return account ? <Link to={`/accounts/${account}`}>{account}</Link> : '—';
                },
              },
              {
                label: 'Data',
                phone: 'wide',
                cellClass: () => 'data-cell',
                cell: (e) => (
                  <details>
                    <summary>Data of {e.id}</summary>
                    <pre>{JSON.stringify(e.data, null, 2)}</pre>
                  </details>
                ),
              },
            ]}
            items={events}
            rowKey={(e) => e.id}
            empty="No events."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
