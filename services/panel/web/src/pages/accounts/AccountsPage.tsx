import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { panelApi, queryKeys, type AccountFilter } from '../../api/panel-api';
import type { Account, AccountPage, Trader } from '../../api/types';
import { useCanManage, useMeta } from '../../app/session';
import { SelectField } from '../../components/Field';
import { formatAmount } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';
import { programAndPhase } from './account-text';
import { CreateAccountsForm } from './CreateAccountsForm';

const SEARCH_DELAY_MS = 300;

/** Filters live in the URL (?status=&q=), so a filtered list can be reloaded and shared. */
function useFilter(): [AccountFilter, (next: AccountFilter) => void] {
  const [params, setParams] = useSearchParams();
  const filter = { status: params.get('status') ?? '', q: params.get('q') ?? '' };
  const setFilter = (next: AccountFilter) => {
    const search = new URLSearchParams();
    if (next.status) search.set('status', next.status);
    if (next.q) search.set('q', next.q);
    setParams(search, { replace: true });
  };
  return [filter, setFilter];
}

function traderText(account: Account, traders: Record<string, Trader>): string {
  if (!account.trader_id) return 'Unassigned';
  const trader = traders[account.trader_id];
  return trader ? `${trader.name} <${trader.email}>` : account.trader_id;
}

export function AccountsPage() {
  usePageTitle('Accounts');
  const canManage = useCanManage();
  const meta = useMeta();
  const [filter, setFilter] = useFilter();
  const [search, setSearch] = useState(filter.q ?? '');

  // Typing filters after a short pause; Enter filters at once.
  useEffect(() => {
    if (search.trim() === (filter.q ?? '')) return;
    const timer = setTimeout(() => setFilter({ ...filter, q: search.trim() }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  });

  const { query: list, items: accounts } = usePaged<Account, AccountPage>(queryKeys.accounts(filter), (cursor) => panelApi.accounts.list(filter, cursor));
  const traders = Object.assign({}, ...(list.data?.pages.map((p) => p.traders) ?? [])) as Record<string, Trader>;

  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ ...filter, q: search.trim() });
  };

  return (
    <>
      <div className="page-head">
        <h1>Accounts</h1>
      </div>
      <section className="card">
        <form className="filters" role="search" onSubmit={submitSearch}>
          <SelectField label="Status" value={filter.status} onChange={(e) => setFilter({ ...filter, status: e.target.value })}>
            <option value="">All statuses</option>
            {meta.account_statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </SelectField>
          <div className="field grow">
            <label htmlFor="account-search">Search</label>
            <input
              id="account-search"
              type="search"
              value={search}
              placeholder="Account number or trader email"
              onChange={(e) => setSearch(e.target.value)}
              aria-describedby="account-search-hint"
            />
            <p id="account-search-hint" className="hint">
              An account number or a trader&apos;s email.
            </p>
          </div>
        </form>
        <QueryState isPending={list.isPending} error={list.error} label="Accounts">
          <ListTable
            caption="Accounts"
            columns={[
              { label: 'Number', phone: 'title', cell: (a) => <Link to={`/accounts/${a.number}`}>{a.number}</Link> },
              { label: 'Status', cell: (a) => <StatusBadge status={a.status} /> },
              { label: 'Trader', phone: 'wide', cellClass: () => 'wrap', cell: (a) => traderText(a, traders) },
              { label: 'Program and phase', phone: 'wide', cell: (a) => programAndPhase(a) },
              { label: 'Balance', num: true, cell: (a) => formatAmount(a.balance, a.currency) },
              { label: 'Equity', num: true, cell: (a) => formatAmount(a.equity, a.currency) },
            ]}
            items={accounts}
            rowKey={(a) => a.number}
            empty="No accounts match."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
      {canManage ? <CreateAccountsForm /> : null}
    </>
  );
}
