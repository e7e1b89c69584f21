import type { ReactNode } from 'react';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Deal, Flag, Position } from '../../api/types';
import { formatAmount, formatNumber, formatTime } from '../../components/format';
import { ListTable, type Columns } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePaged } from '../../components/usePaged';

/** How often open positions are read again while there are any: their price and P/L follow the quotes. */
export const LIVE_POSITIONS_MS = 2000;

function PagedTable<T>({
  title,
  columns,
  empty,
  paged,
  rowKey,
  footer,
}: {
  title: string;
  columns: Columns<T>;
  empty: string;
  paged: ReturnType<typeof usePaged<T>>;
  rowKey: (item: T) => string;
  footer?: ReactNode;
}) {
  const { query, items } = paged;
  return (
    <section className="card">
      <QueryState isPending={query.isPending} error={query.error} label={title}>
        <ListTable caption={title} columns={columns} items={items} empty={empty} rowKey={rowKey} />
        {footer}
        <LoadMore hasNextPage={query.hasNextPage} isFetchingNextPage={query.isFetchingNextPage} fetchNextPage={query.fetchNextPage} />
      </QueryState>
    </section>
  );
}

const lossClass = (value: number | null) => (value !== null && value < 0 ? 'loss' : undefined);

/** Open positions with the price each is marked at and its floating P/L, read again every LIVE_POSITIONS_MS while any is open. */
export function OpenPositions({ number, currency }: { number: number; currency: string }) {
  const paged = usePaged<Position>([...queryKeys.account(number), 'positions', 'open'], (cursor) => panelApi.accounts.positions(number, 'open', cursor), {
    pollWhile: (open) => (open.length > 0 ? LIVE_POSITIONS_MS : false),
  });
  const live = paged.items.length > 0;
  return (
    <PagedTable
      title="Open positions"
      empty="No open positions."
      paged={paged}
      rowKey={(p) => p.id}
      columns={[
        { label: 'Symbol', phone: 'title', cell: (p) => p.symbol },
        { label: 'Side', cell: (p) => p.side },
        { label: 'Lots', num: true, cell: (p) => formatNumber(p.volume) },
        { label: 'Open price', num: true, cell: (p) => formatNumber(p.open_price) },
        { label: 'Current price', num: true, cell: (p) => formatNumber(p.current_price) },
        { label: 'Floating P/L', num: true, cellClass: (p) => lossClass(p.floating_profit), cell: (p) => formatAmount(p.floating_profit, currency) },
        { label: 'Stop loss', num: true, cell: (p) => formatNumber(p.stop_loss) },
        { label: 'Take profit', num: true, cell: (p) => formatNumber(p.take_profit) },
        { label: 'Opened', cell: (p) => formatTime(p.opened_at) },
      ]}
      footer={live ? <p className="hint">Prices and P/L follow the market: read again every {LIVE_POSITIONS_MS / 1000} seconds.</p> : null}
    />
  );
}

export function Trades({ number, currency }: { number: number; currency: string }) {
  const paged = usePaged<Deal>([...queryKeys.account(number), 'trades'], (cursor) => panelApi.accounts.trades(number, cursor));
  return (
    <PagedTable
      title="Trades"
      empty="No trades yet."
      paged={paged}
      rowKey={(d) => d.id}
      columns={[
        { label: 'Closed', cell: (d) => formatTime(d.closed_at) },
        // A balance adjustment (SPEC 14) is a deal of its own kind: no symbol, side, lots or prices.
        { label: 'Symbol', phone: 'title', cell: (d) => (d.type === 'balance' ? 'Balance adjustment' : d.symbol) },
        { label: 'Side', cell: (d) => d.side ?? '—' },
        { label: 'Lots', num: true, cell: (d) => formatNumber(d.volume) },
        { label: 'Open', num: true, cell: (d) => formatNumber(d.open_price) },
        { label: 'Close', num: true, cell: (d) => formatNumber(d.close_price) },
        { label: 'Profit', num: true, cellClass: (d) => lossClass(d.profit), cell: (d) => formatAmount(d.profit, currency) },
        { label: 'Balance after', num: true, cell: (d) => formatAmount(d.balance_after, currency) },
        { label: 'Reason', cell: (d) => d.close_reason ?? '—' },
      ]}
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
      rowKey={(f) => f.id}
      columns={[
        { label: 'When', cell: (f) => formatTime(f.created_at) },
        { label: 'Action', cell: (f) => <StatusBadge status={f.action === 'breach' ? 'breached' : 'flagged'} /> },
        { label: 'Rule', phone: 'wide', cell: (f) => f.rule.replace(/_/g, ' ') },
        {
          label: 'Reason',
          phone: 'wide',
          cellClass: () => 'wrap',
          cell: (f) => (
            <>
              {f.reason}
              {f.reinstated_at ? <div className="muted small">{`Reinstated ${formatTime(f.reinstated_at)}: ${f.reinstated_reason ?? ''}`}</div> : null}
            </>
          ),
        },
        { label: 'Evidence', phone: 'wide', cell: (f) => <Evidence evidence={f.evidence} /> },
      ]}
    />
  );
}
