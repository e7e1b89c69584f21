import { useQuery } from '@tanstack/react-query';
import { panelApi, queryKeys } from '../../api/panel-api';
import { formatMoney, formatPct, formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { QueryState } from '../../components/QueryState';

/** The payouts of a funded account (SPEC section 10). */
export function PayoutsSection({ number }: { number: number }) {
  const payouts = useQuery({ queryKey: [...queryKeys.account(number), 'payouts'], queryFn: () => panelApi.accounts.payouts(number) });
  const items = payouts.data?.data ?? [];
  return (
    <section className="card">
      <QueryState isPending={payouts.isPending} error={payouts.error} label="Payouts">
        <ListTable
          caption="Payouts"
          columns={[{ label: 'When' }, { label: 'Amount', num: true }, { label: 'Split', num: true }, { label: 'Trader', num: true }, { label: 'Firm', num: true }, { label: 'Balance after', num: true }]}
          items={items}
          empty="No payouts yet."
          row={(p) => (
            <tr key={p.id}>
              <td>{formatTime(p.created_at)}</td>
              <td className="num">{formatMoney(p.amount)}</td>
              <td className="num">{formatPct(p.profit_split_pct)}</td>
              <td className="num">{formatMoney(p.trader_share)}</td>
              <td className="num">{formatMoney(p.firm_share)}</td>
              <td className="num">{formatMoney(p.balance_after)}</td>
            </tr>
          )}
        />
      </QueryState>
    </section>
  );
}
