import { panelApi, queryKeys } from '../../api/panel-api';
import type { TimelineItem } from '../../api/types';
import { formatTimeSeconds } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { usePaged } from '../../components/usePaged';
import { actorText, Changes } from '../audit/audit-text';

const when = (item: TimelineItem) => (item.kind === 'event' ? item.event.created_at : item.audit_entry.created_at);

/** SPEC 14: the account's history, its events and the changes made to it (with who made them), newest first. */
export function AccountTimeline({ number }: { number: number }) {
  const { query, items } = usePaged<TimelineItem>([...queryKeys.account(number), 'timeline'], (cursor) => panelApi.accounts.timeline(number, cursor));
  return (
    <section className="card">
      <QueryState isPending={query.isPending} error={query.error} label="The timeline">
        <ListTable
          caption="Timeline"
          columns={[
            { label: 'When', cell: (item) => formatTimeSeconds(when(item)) },
            { label: 'What', phone: 'title', cell: (item) => (item.kind === 'event' ? item.event.type : item.audit_entry.action) },
            { label: 'By', cell: (item) => (item.kind === 'event' ? <span className="muted">event</span> : actorText(item.audit_entry.actor)) },
            {
              label: 'Details',
              phone: 'wide',
              cellClass: () => 'data-cell',
              cell: (item) =>
                item.kind === 'event' ? (
                  <details>
                    <summary>Data of {item.event.id}</summary>
                    <pre>{JSON.stringify(item.event.data, null, 2)}</pre>
                  </details>
                ) : (
                  <Changes entry={item.audit_entry} />
                ),
            },
          ]}
          items={items}
          rowKey={(item) => (item.kind === 'event' ? item.event.id : item.audit_entry.id)}
          empty="Nothing has happened to this account yet."
        />
        <LoadMore hasNextPage={query.hasNextPage} isFetchingNextPage={query.isFetchingNextPage} fetchNextPage={query.fetchNextPage} />
      </QueryState>
    </section>
  );
}
