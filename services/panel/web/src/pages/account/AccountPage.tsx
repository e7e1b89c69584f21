import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Account } from '../../api/types';
import { useCanManage } from '../../app/session';
import { formatAmount, formatTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { NotFoundPage } from '../NotFoundPage';
import { phaseText, programText } from '../accounts/account-text';
import { AccountActions } from './AccountActions';
import { AccountTimeline } from './AccountTimeline';
import { EndingActions } from './EndingActions';
import { CredentialsSection } from './CredentialsSection';
import { EquityChart } from './EquityChart';
import { LimitsSection } from './LimitsSection';
import { PayoutsSection } from './PayoutsSection';
import { TraderSection } from './TraderSection';
import { Flags, OpenPositions, Trades } from './TradingTables';

function Identity({ account }: { account: Account }) {
  const amount = (value: number) => formatAmount(value, account.currency);
  return (
    <dl className="facts identity">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={account.status} />
      </dd>
      <dt>Program</dt>
      <dd>{programText(account)}</dd>
      <dt>Phase</dt>
      <dd>{phaseText(account)}</dd>
      <dt>Attempt</dt>
      <dd>{account.attempt ?? '—'}</dd>
      <dt>Trading</dt>
      <dd>{account.trading_halted ? <StatusBadge status="halted" /> : 'open'}</dd>
      <dt>Balance</dt>
      <dd>{amount(account.balance)}</dd>
      <dt>Equity</dt>
      <dd>{amount(account.equity)}</dd>
      <dt>Peak equity</dt>
      <dd>{amount(account.peak_equity)}</dd>
      <dt>Initial balance</dt>
      <dd>{amount(account.initial_balance)}</dd>
      <dt>Created</dt>
      <dd>{formatTime(account.created_at)}</dd>
      {account.previous_account ? (
        <>
          <dt>Previous phase</dt>
          <dd>
            <Link to={`/accounts/${account.previous_account}`}>{account.previous_account}</Link>
          </dd>
        </>
      ) : null}
      {account.next_account ? (
        <>
          <dt>Next phase</dt>
          <dd>
            <Link to={`/accounts/${account.next_account}`}>{account.next_account}</Link>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** One account: identity, trader, limits, equity curve, trading, evidence, and the staff's actions. */
export function AccountPage() {
  const params = useParams();
  const number = Number(params.number);
  usePageTitle(`Account ${params.number ?? ''}`);
  const canManage = useCanManage();
  const valid = Number.isSafeInteger(number) && number > 0;
  const detail = useQuery({ queryKey: queryKeys.account(number), queryFn: () => panelApi.accounts.get(number), enabled: valid });
  // Fetched beside the account, not after it: the page's parts load in parallel.
  const analytics = useQuery({ queryKey: [...queryKeys.account(number), 'analytics'], queryFn: () => panelApi.accounts.analytics(number), enabled: valid });

  if (!valid || (detail.error instanceof ApiError && detail.error.status === 404)) return <NotFoundPage />;
  const account = detail.data?.account;
  // Every amount on the page is in the account's currency (all USD today).
  const currency = account?.currency ?? 'USD';
  return (
    <>
      <div className="page-head">
        <p className="crumbs">
          <Link to="/accounts">Accounts</Link>
        </p>
        <h1>Account {params.number}</h1>
      </div>
      <QueryState isPending={detail.isPending} error={detail.error} label="The account">
        {account && detail.data ? (
          <>
            <section className="card">
              <Identity account={account} />
            </section>
            <TraderSection detail={detail.data} canManage={canManage} />
          </>
        ) : null}
      </QueryState>
      <section className="card">
        <h2 id="equity-title">Equity</h2>
        <EquityChart number={number} analytics={analytics.data} analyticsSettled={!analytics.isPending} currency={currency} />
      </section>
      <LimitsSection number={number} currency={currency} analytics={analytics.data} analyticsPending={analytics.isPending} analyticsError={analytics.error} />
      <OpenPositions number={number} currency={currency} />
      <Flags number={number} />
      <Trades number={number} currency={currency} />
      {account?.phase?.kind === 'funded' ? <PayoutsSection number={number} currency={currency} /> : null}
      <AccountTimeline number={number} />
      {canManage && account ? <AccountActions account={account} /> : null}
      {canManage ? <CredentialsSection number={number} /> : null}
      {canManage && account ? <EndingActions account={account} /> : null}
    </>
  );
}
