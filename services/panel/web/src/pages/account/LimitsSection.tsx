import { useQuery } from '@tanstack/react-query';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Analytics } from '../../api/types';
import { formatAmount, formatNumber, formatPct } from '../../components/format';
import { QueryState } from '../../components/QueryState';

/** The frozen terms and, next to each limit, how much is left before it (analytics' headroom). */
export function LimitsSection({
  number,
  currency,
  analytics,
  analyticsPending,
  analyticsError,
}: {
  number: number;
  currency: string;
  analytics?: Analytics;
  analyticsPending: boolean;
  analyticsError: unknown;
}) {
  const terms = useQuery({ queryKey: [...queryKeys.account(number), 'terms'], queryFn: () => panelApi.accounts.terms(number) });
  const h = analytics?.headroom;
  const t = terms.data;
  return (
    <section className="card">
      <h2 id="limits-title">Terms and headroom</h2>
      <QueryState isPending={analyticsPending} error={analyticsError} label="Headroom">
        <div className="table-scroll">
          <table className="list">
            <caption className="sr-only">Limits and what is left before each</caption>
            <thead>
              <tr>
                <th scope="col">Limit</th>
                <th scope="col">Term</th>
                <th scope="col" className="num">
                  Left
                </th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Max daily loss</th>
                <td>{t ? formatPct(t.max_daily_loss_pct) : '—'}</td>
                <td className="num">{formatAmount(h?.daily_loss_remaining, currency)}</td>
              </tr>
              <tr>
                <th scope="row">Max total loss</th>
                <td>{t ? `${formatPct(t.max_total_loss_pct)} (${t.total_loss_mode})` : '—'}</td>
                <td className="num">{formatAmount(h?.total_loss_remaining, currency)}</td>
              </tr>
              <tr>
                <th scope="row">Profit target</th>
                <td>{t ? formatPct(t.profit_target_pct) : '—'}</td>
                <td className="num">{formatAmount(h?.profit_target_remaining, currency)}</td>
              </tr>
              <tr>
                <th scope="row">Minimum trading days</th>
                <td>{t ? formatNumber(t.min_trading_days) : '—'}</td>
                <td className="num">{h ? `${h.trading_days} of ${h.min_trading_days} traded` : '—'}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </QueryState>
      {t ? (
        <dl className="facts">
          <dt>Leverage</dt>
          <dd>1:{formatNumber(t.leverage)}</dd>
          <dt>Max lots per order</dt>
          <dd>{formatNumber(t.max_lots_per_order)}</dd>
          <dt>Instruments</dt>
          <dd>{t.allowed_symbols ? t.allowed_symbols.join(', ') : 'every instrument'}</dd>
          <dt>Flags</dt>
          <dd>
            {t.flag_lots_above !== null ? `orders above ${formatNumber(t.flag_lots_above)} lots` : 'no order-size flag'}
            {t.flag_weekend_holding ? '; weekend holding' : ''}
          </dd>
        </dl>
      ) : terms.error ? (
        <p className="muted">The frozen terms could not be loaded.</p>
      ) : null}
    </section>
  );
}
