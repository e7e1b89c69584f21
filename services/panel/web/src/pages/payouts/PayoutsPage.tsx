import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Payout, PayoutStatus } from '../../api/types';
import { useCanManage } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { SelectField, TextField } from '../../components/Field';
import { formatAmount, formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';

const STATUSES: ReadonlyArray<{ value: PayoutStatus | ''; label: string }> = [
  { value: 'pending', label: 'Pending approval' },
  { value: 'approved', label: 'Approved' },
  { value: 'paid', label: 'Paid' },
  { value: 'rejected', label: 'Rejected' },
  { value: '', label: 'All payouts' },
];

// Amounts are in the account's currency, USD for every program today.
const money = (value: number | null | undefined) => formatAmount(value, 'USD');
const describe = (p: Payout) => `the payout of ${money(p.amount)} for account ${p.account}`;

/** What changed the queue changes elsewhere too: the payout lists and the account. */
function useSettle() {
  const queryClient = useQueryClient();
  return (p: Payout) => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.payouts() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.account(p.account) });
  };
}

/** Approve (confirmed) and Reject (which opens the reason form under the row) of a pending payout. */
function PayoutActions({ payout, rejecting, onReject }: { payout: Payout; rejecting: boolean; onReject: () => void }) {
  const settle = useSettle();
  const approve = useMutation({ mutationFn: () => panelApi.payouts.approve(payout.id), onSuccess: settle });
  return (
    <>
      <div className="row-actions">
        <button
          type="button"
          className="small"
          aria-label={`Approve ${describe(payout)}`}
          disabled={approve.isPending}
          onClick={() => {
            if (confirmed(`Approve ${describe(payout)}? Its balance drops by the amount now.`)) approve.mutate();
          }}
        >
          Approve
        </button>
        {rejecting ? null : (
          <button type="button" className="secondary danger small" aria-label={`Reject ${describe(payout)}`} onClick={onReject}>
            Reject
          </button>
        )}
      </div>
      <ErrorMessage error={approve.error} />
    </>
  );
}

/** The reason a rejection needs, then the confirmation. */
function RejectForm({ payout, onDone }: { payout: Payout; onDone: () => void }) {
  const settle = useSettle();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const reject = useMutation({
    mutationFn: () => panelApi.payouts.reject(payout.id, reason.trim()),
    onSuccess: (p) => {
      settle(p);
      onDone();
    },
  });
  return (
    <form
      className="inline-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!reason.trim()) {
          setReasonError('Give the reason for the rejection.');
          return;
        }
        setReasonError(undefined);
        if (confirmed(`Reject ${describe(payout)} for "${reason.trim()}"? Its reserved amount is released.`)) reject.mutate();
      }}
    >
      <TextField label="Rejection reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} error={reasonError} />
      <div className="actions row-actions">
        <button type="submit" className="danger" disabled={reject.isPending}>
          Reject payout
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={reject.error} />
    </form>
  );
}

/**
 * SPEC 14: the organization's payouts, the pending queue first (the status filter lives in the
 * URL). Owners and admins approve or reject a pending payout; members read.
 */
export function PayoutsPage() {
  usePageTitle('Payouts');
  const canManage = useCanManage();
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? 'pending') as PayoutStatus | '';
  const [rejecting, setRejecting] = useState<string | null>(null);
  const { query: list, items: payouts } = usePaged<Payout>(queryKeys.payouts(status), (cursor) => panelApi.payouts.list(status, cursor));

  return (
    <>
      <div className="page-head">
        <h1>Payouts</h1>
      </div>
      <section className="card">
        <form className="filters" onSubmit={(e) => e.preventDefault()}>
          <SelectField label="Status" value={status} onChange={(e) => setParams({ status: e.target.value }, { replace: true })}>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </SelectField>
        </form>
        <QueryState isPending={list.isPending} error={list.error} label="Payouts">
          <ListTable
            caption="Payouts"
            columns={[
              { label: 'Account', phone: 'title', cell: (p) => <Link to={`/accounts/${p.account}`}>{p.account}</Link> },
              { label: 'Requested', cell: (p) => formatTime(p.requested_at ?? p.created_at) },
              { label: 'Amount', num: true, cell: (p) => money(p.amount) },
              { label: 'Trader share', num: true, cell: (p) => money(p.trader_share) },
              { label: 'Status', cell: (p) => <StatusBadge status={p.status ?? 'approved'} /> },
              { label: 'Decided', cell: (p) => (p.decided_at ? `${formatTime(p.decided_at)}${p.reason ? ` — ${p.reason}` : ''}` : '—') },
              canManage && {
                label: 'Actions',
                phone: 'actions',
                cell: (p) => (p.status === 'pending' ? <PayoutActions payout={p} rejecting={rejecting === p.id} onReject={() => setRejecting(p.id)} /> : null),
              },
            ]}
            items={payouts}
            rowKey={(p) => p.id}
            detail={(p) => (canManage && rejecting === p.id && p.status === 'pending' ? <RejectForm payout={p} onDone={() => setRejecting(null)} /> : null)}
            empty={status === 'pending' ? 'No payout waits for approval.' : 'No payouts.'}
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
