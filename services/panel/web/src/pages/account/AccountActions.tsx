import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Account } from '../../api/types';
import { confirmed } from '../../components/confirm';
import { TextField } from '../../components/Field';
import { formatAmount } from '../../components/format';
import { errorText } from '../../components/QueryState';
import { AdjustControl, HaltControl, ReinstateControl } from './OperatorControls';

/** After an action: the account, the list and the credits are read again. */
export function useSettle(account: Account, setDone: (message: string) => void) {
  const queryClient = useQueryClient();
  return (message: string) => {
    setDone(message);
    void queryClient.invalidateQueries({ queryKey: queryKeys.account(account.number) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accounts() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.organization });
    void queryClient.invalidateQueries({ queryKey: queryKeys.payouts() });
  };
}

/**
 * The routine actions, Reset and Payout, and SPEC 14's operator controls (Halt or Resume,
 * Reinstate for a breached account, Adjust balance): each asks for confirmation; the server
 * decides what is allowed. Breach and Archive, which end the account, are apart (EndingActions).
 */
export function AccountActions({ account }: { account: Account }) {
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string>();
  const [done, setDone] = useState('');
  const settle = useSettle(account, setDone);
  const n = account.number;
  const money = (value: number) => formatAmount(value, account.currency);
  // Halts and adjustments are for an account that trades, or may again once reinstated.
  const open = account.status === 'active' || account.status === 'breached';

  const reset = useMutation({ mutationFn: () => panelApi.accounts.reset(n), onSuccess: () => settle(`Account ${n} was reset.`) });
  const payout = useMutation({
    mutationFn: () => panelApi.accounts.payout(n, amount.trim() === '' ? undefined : Number(amount)),
    onSuccess: (p) => {
      setAmount('');
      settle(
        p.status === 'pending'
          ? `Payout of ${money(p.amount)} requested: it waits for approval on the Payouts page.`
          : `Payout of ${money(p.amount)} recorded: trader ${money(p.trader_share)}, firm ${money(p.firm_share)}.`,
      );
    },
  });
  const busy = reset.isPending || payout.isPending;
  const failure = reset.error ?? payout.error;
  const payoutError = payout.error instanceof ApiError && payout.error.param === 'amount' ? errorText(payout.error) : undefined;

  const start = (other: { reset: () => void }) => {
    setDone('');
    other.reset();
  };

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <div className="action-grid">
        <div className="action">
          <p className="hint">Start a new attempt at the initial balance of {money(account.initial_balance)} (one credit).</p>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => {
              start(payout);
              if (confirmed(`Reset account ${n}? Open positions are closed, the balance returns to ${money(account.initial_balance)}, and one credit is spent.`)) reset.mutate();
            }}
          >
            Reset
          </button>
        </div>
        <form
          className="action"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            start(reset);
            const value = amount.trim() === '' ? undefined : Number(amount);
            if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
              setAmountError('Enter a positive amount, or leave it empty for the whole profit.');
              return;
            }
            setAmountError(undefined);
            if (confirmed(value === undefined ? `Pay out the whole closed profit of account ${n}?` : `Pay out ${money(value)} from account ${n}?`)) payout.mutate();
          }}
        >
          <TextField
            label="Payout amount"
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            hint={`In ${account.currency}. Empty: the whole closed profit.`}
            error={amountError ?? payoutError}
          />
          <button type="submit" className="secondary" disabled={busy}>
            Payout
          </button>
        </form>
        {open ? <HaltControl account={account} settle={settle} /> : null}
        {account.status === 'breached' ? <ReinstateControl account={account} settle={settle} /> : null}
        {open ? <AdjustControl account={account} settle={settle} /> : null}
      </div>
      {failure && !payoutError ? (
        <p className="error" role="alert">
          {errorText(failure)}
        </p>
      ) : null}
      <p role="status" className="ok">
        {done}
      </p>
    </section>
  );
}
