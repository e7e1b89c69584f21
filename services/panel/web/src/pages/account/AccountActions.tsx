import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Account } from '../../api/types';
import { confirmed } from '../../components/confirm';
import { TextField } from '../../components/Field';
import { formatMoney } from '../../components/format';
import { errorText } from '../../components/QueryState';

/** Reset, Archive, Breach and Payout: each asks for confirmation; the server decides what is allowed. */
export function AccountActions({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string>();
  const [done, setDone] = useState('');
  const n = account.number;

  const settle = (message: string) => {
    setDone(message);
    void queryClient.invalidateQueries({ queryKey: queryKeys.account(n) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accounts() });
  };
  const reset = useMutation({ mutationFn: () => panelApi.accounts.reset(n), onSuccess: () => settle(`Account ${n} was reset.`) });
  const archive = useMutation({ mutationFn: () => panelApi.accounts.archive(n), onSuccess: () => settle(`Account ${n} was archived.`) });
  const breach = useMutation({
    mutationFn: () => panelApi.accounts.breach(n, reason.trim()),
    onSuccess: () => {
      setReason('');
      settle(`Account ${n} was breached.`);
    },
  });
  const payout = useMutation({
    mutationFn: () => panelApi.accounts.payout(n, amount.trim() === '' ? undefined : Number(amount)),
    onSuccess: (p) => {
      setAmount('');
      settle(`Payout of ${formatMoney(p.amount)} recorded: trader ${formatMoney(p.trader_share)}, firm ${formatMoney(p.firm_share)}.`);
    },
  });
  const busy = reset.isPending || archive.isPending || breach.isPending || payout.isPending;
  const failure = [reset, archive, breach, payout].find((m) => m.error)?.error;
  const breachError = breach.error instanceof ApiError && breach.error.param === 'reason' ? errorText(breach.error) : undefined;
  const payoutError = payout.error instanceof ApiError && payout.error.param === 'amount' ? errorText(payout.error) : undefined;

  const start = (action: { reset: () => void }) => {
    setDone('');
    for (const m of [reset, archive, breach, payout]) if (m !== action) m.reset();
  };

  return (
    <section className="card">
      <h2 id="actions-title">Actions</h2>
      <div className="action-grid">
        <div className="action">
          <p className="hint">Start a new attempt at the initial balance (one credit).</p>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => {
              start(reset);
              if (confirmed(`Reset account ${n}? Open positions are closed, the balance returns to ${formatMoney(account.initial_balance)}, and one credit is spent.`)) reset.mutate();
            }}
          >
            Reset
          </button>
        </div>
        <div className="action">
          <p className="hint">Take the account out of circulation.</p>
          <button
            type="button"
            className="secondary danger"
            disabled={busy}
            onClick={() => {
              start(archive);
              if (confirmed(`Archive account ${n}? It can no longer be traded.`)) archive.mutate();
            }}
          >
            Archive
          </button>
        </div>
        <form
          className="action"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            start(breach);
            if (!reason.trim()) {
              setReasonError('Give the reason for the breach.');
              return;
            }
            setReasonError(undefined);
            if (confirmed(`Breach account ${n} for "${reason.trim()}"? This ends the evaluation.`)) breach.mutate();
          }}
        >
          <TextField label="Breach reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} error={reasonError ?? breachError} />
          <button type="submit" className="danger" disabled={busy}>
            Breach
          </button>
        </form>
        <form
          className="action"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            start(payout);
            const value = amount.trim() === '' ? undefined : Number(amount);
            if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
              setAmountError('Enter a positive amount, or leave it empty for the whole profit.');
              return;
            }
            setAmountError(undefined);
            if (confirmed(value === undefined ? `Pay out the whole closed profit of account ${n}?` : `Pay out ${formatMoney(value)} from account ${n}?`)) payout.mutate();
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
            hint="Empty: the whole closed profit."
            error={amountError ?? payoutError}
          />
          <button type="submit" className="secondary" disabled={busy}>
            Payout
          </button>
        </form>
      </div>
      {failure && !breachError && !payoutError ? (
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
