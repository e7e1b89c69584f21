import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Page, PanelEvent } from '../../api/types';
import { useMeta } from '../../app/session';
import { SelectField } from '../../components/Field';
import { formatTime } from '../../components/format';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { usePageTitle } from '../../components/usePageTitle';

/** The event feed, filtered by type (kept in the URL); each event's data is readable as JSON text. */
export function EventsPage() {
  usePageTitle('Events');
  const meta = useMeta();
  const [params, setParams] = useSearchParams();
  const type = params.get('type') ?? '';
  const list = useInfiniteQuery({
    queryKey: queryKeys.events(type),
    queryFn: ({ pageParam }) => panelApi.events.list(type, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: Page<PanelEvent>) => last.next_cursor ?? undefined,
  });
  const events = list.data?.pages.flatMap((p) => p.data) ?? [];

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
          <div className="table-scroll">
            <table className="list">
              <caption>Events</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col">Account</th>
                  <th scope="col">Data</th>
                </tr>
              </thead>
              <tbody>
                {events.length === 0 ? (
                  <tr>
                    <td colSpan={4} className="muted">
                      No events.
                    </td>
                  </tr>
                ) : (
                  events.map((e) => {
                    const account = typeof e.data.account === 'number' ? e.data.account : undefined;
                    return (
                      <tr key={e.id}>
                        <td>{formatTime(e.created_at)}</td>
                        <td>
                          {e.type}
                          <div className="muted small">{e.id}</div>
                        </td>
                        <td>{account ? <Link to={`/accounts/${account}`}>{account}</Link> : '—'}</td>
                        <td className="data-cell">
                          <details>
                            <summary>Data of {e.id}</summary>
                            <pre>{JSON.stringify(e.data, null, 2)}</pre>
                          </details>
                        </td>
                      </tr>
                    );
                  })
                )}
              </tbody>
            </table>
          </div>
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
