import type { ReactNode } from 'react';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Deal, Flag, Position } from '../../api/types';
import { formatMoney, formatNumber, formatTime } from '../../components/format';
import { ListTable, type Column } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePaged } from '../../components/usePaged';

function PagedTable<T>({
  title,
  columns,
  empty,
  paged,
  row,
}: {
  title: string;
  columns: Column[];
  empty: string;
  paged: ReturnType<typeof usePaged<T>>;
  row: (item: T) => ReactNode;
}) {
  const { query, items } = paged;
  return (
    <section className="card">
      <QueryState isPending={query.isPending} error={query.error} label={title}>
        <ListTable caption={title} columns={columns} items={items} empty={empty} row={row} />
        <LoadMore hasNextPage={query.hasNextPage} isFetchingNextPage={query.isFetchingNextPage} fetchNextPage={query.fetchNextPage} />
      </QueryState>
    </section>
  );
}

export function OpenPositions({ number }: { number: number }) {
  const paged = usePaged<Position>([...queryKeys.account(number), 'positions', 'open'], (cursor) => panelApi.accounts.positions(number, 'open', cursor));
  return (
    <PagedTable
      title="Open positions"
      empty="No open positions."
      paged={paged}
      columns={[{ label: 'Symbol' }, { label: 'Side' }, { label: 'Lots', num: true }, { label: 'Open price', num: true }, { label: 'Stop loss', num: true }, { label: 'Take profit', num: true }, { label: 'Opened' }]}
      row={(p) => (
        <tr key={p.id}>
          <td>{p.symbol}</td>
          <td>{p.side}</td>
          <td className="num">{formatNumber(p.volume)}</td>
          <td className="num">{formatNumber(p.open_price)}</td>
          <td className="num">{formatNumber(p.stop_loss)}</td>
          <td className="num">{formatNumber(p.take_profit)}</td>
          <td>{formatTime(p.opened_at)}</td>
        </tr>
      )}
    />
  );
}

export function Trades({ number }: { number: number }) {
  const paged = usePaged<Deal>([...queryKeys.account(number), 'trades'], (cursor) => panelApi.accounts.trades(number, cursor));
  return (
    <PagedTable
      title="Trades"
      empty="No trades yet."
      paged={paged}
      columns={[
        { label: 'Closed' },
        { label: 'Symbol' },
        { label: 'Side' },
        { label: 'Lots', num: true },
        { label: 'Open', num: true },
        { label: 'Close', num: true },
        { label: 'Profit', num: true },
        { label: 'Balance after', num: true },
        { label: 'Reason' },
      ]}
      row={(d) => (
        <tr key={d.id}>
          <td>{formatTime(d.closed_at)}</td>
          <td>{d.symbol}</td>
          <td>{d.side}</td>
          <td className="num">{formatNumber(d.volume)}</td>
          <td className="num">{formatNumber(d.open_price)}</td>
          <td className="num">{formatNumber(d.close_price)}</td>
          <td className={d.profit < 0 ? 'num loss' : 'num'}>{formatMoney(d.profit)}</td>
          <td className="num">{formatMoney(d.balance_after)}</td>
          <td>{d.close_reason ?? '—'}</td>
        </tr>
      )}
    />
  );
}

/** Evidence is data: each figure as a term and its value, as text. */
export function Evidence({ evidence }: { evidence: Record<string, unknown> }) {
  const entries = Object.entries(evidence);
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="evidence">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name.replace(/_/g, ' ')}</dt>
          <dd>{typeof value === 'number' ? formatNumber(value) : typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Flags({ number }: { number: number }) {
  const paged = usePaged<Flag>([...queryKeys.account(number), 'flags'], (cursor) => panelApi.accounts.flags(number, cursor));
  return (
    <PagedTable
      title="Flags and breaches"
      empty="No flags or breaches."
      paged={paged}
      columns={[{ label: 'When' }, { label: 'Action' }, { label: 'Rule' }, { label: 'Reason' }, { label: 'Evidence' }]}
      row={(f) => (
        <tr key={f.id}>
          <td>{formatTime(f.created_at)}</td>
          <td>
            <StatusBadge status={f.action === 'breach' ? 'breached' : 'flagged'} />
          </td>
          <td>{f.rule.replace(/_/g, ' ')}</td>
          <td className="wrap">{f.reason}</td>
          <td>
            <Evidence evidence={f.evidence} />
          </td>
        </tr>
      )}
    />
  );
}
