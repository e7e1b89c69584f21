import { useQuery } from '@tanstack/react-query';
import { panelApi, queryKeys } from '../../api/panel-api';
import { formatMoney, formatPct, formatTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';

/** The payouts of a funded account (SPEC section 10). */
export function PayoutsSection({ number }: { number: number }) {
  const payouts = useQuery({ queryKey: [...queryKeys.account(number), 'payouts'], queryFn: () => panelApi.accounts.payouts(number) });
  const items = payouts.data?.data ?? [];
  return (
    <section className="card">
      <QueryState isPending={payouts.isPending} error={payouts.error} label="Payouts">
        <div className="table-scroll">
          <table className="list">
            <caption>Payouts</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col" className="num">Amount</th>
                <th scope="col" className="num">Split</th>
                <th scope="col" className="num">Trader</th>
                <th scope="col" className="num">Firm</th>
                <th scope="col" className="num">Balance after</th>
              </tr>
            </thead>
            <tbody>
              {items.length === 0 ? (
                <tr>
                  <td colSpan={6} className="muted">
                    No payouts yet.
                  </td>
                </tr>
              ) : (
                items.map((p) => (
                  <tr key={p.id}>
                    <td>{formatTime(p.created_at)}</td>
                    <td className="num">{formatMoney(p.amount)}</td>
                    <td className="num">{formatPct(p.profit_split_pct)}</td>
                    <td className="num">{formatMoney(p.trader_share)}</td>
                    <td className="num">{formatMoney(p.firm_share)}</td>
                    <td className="num">{formatMoney(p.balance_after)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      </QueryState>
    </section>
  );
}
