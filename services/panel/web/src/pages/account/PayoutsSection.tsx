import { useQuery } from '@tanstack/react-query';
import { panelApi, queryKeys } from '../../api/panel-api';
import { formatAmount, formatPct, formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';

/** The payouts of a funded account (a program's funded phase). */
export function PayoutsSection({ number, currency }: { number: number; currency: string }) {
  const payouts = useQuery({ queryKey: [...queryKeys.account(number), 'payouts'], queryFn: () => panelApi.accounts.payouts(number) });
  const items = payouts.data?.data ?? [];
  const money = (value: number | null) => formatAmount(value, currency);
  return (
    <section className="card">
      <QueryState isPending={payouts.isPending} error={payouts.error} label="Payouts">
        <ListTable
          caption="Payouts"
          columns={[
            { label: 'When', cell: (p) => formatTime(p.created_at) },
            { label: 'Amount', num: true, cell: (p) => money(p.amount) },
            { label: 'Split', num: true, cell: (p) => formatPct(p.profit_split_pct) },
            { label: 'Trader', num: true, cell: (p) => money(p.trader_share) },
            { label: 'Firm', num: true, cell: (p) => money(p.firm_share) },
            { label: 'Balance after', num: true, cell: (p) => money(p.balance_after) },
            { label: 'Status', cell: (p) => <StatusBadge status={p.status ?? 'approved'} /> },
          ]}
          items={items}
          rowKey={(p) => p.id}
          empty="No payouts yet."
        />
      </QueryState>
    </section>
  );
}
