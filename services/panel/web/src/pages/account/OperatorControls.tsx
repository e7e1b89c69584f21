import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi } from '../../api/panel-api';
import type { Account } from '../../api/types';
import { confirmed } from '../../components/confirm';
import { TextField } from '../../components/Field';
import { formatAmount } from '../../components/format';
import { errorText } from '../../components/QueryState';

/** What every control of the card gets: the account, and how to say what was done (the card reads everything again). */
interface ControlProps {
  account: Account;
  settle: (message: string) => void;
}

/** The error of a control: next to the field it names, or as an alert under the control. */
function fieldError(error: unknown, param: string): string | undefined {
  return error instanceof ApiError && error.param === param ? errorText(error) : undefined;
}

function ControlError({ error, shown }: { error: unknown; shown: boolean }) {
  if (!error || shown) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

/**
 * SPEC 14: Halt (with a reason) while the account trades, Resume while it is halted. A halted
 * account refuses new orders; its open positions stay and it is still evaluated.
 */
export function HaltControl({ account, settle }: ControlProps) {
  const n = account.number;
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState<string>();
  const halt = useMutation({
    mutationFn: () => panelApi.accounts.halt(n, reason.trim()),
    onSuccess: () => {
      setReason('');
      settle(`Trading on account ${n} is halted.`);
    },
  });
  const resume = useMutation({ mutationFn: () => panelApi.accounts.resume(n), onSuccess: () => settle(`Trading on account ${n} is resumed.`) });
  const reasonError = missing ?? fieldError(halt.error, 'reason');

  if (account.trading_halted) {
    return (
      <div className="action">
        <p className="hint">Trading is halted: new orders are refused; open positions stay and the rules still apply.</p>
        <button
          type="button"
          className="secondary"
          disabled={resume.isPending}
          onClick={() => {
            if (confirmed(`Resume trading on account ${n}? New orders are accepted again.`)) resume.mutate();
          }}
        >
          Resume
        </button>
        <ControlError error={resume.error} shown={false} />
      </div>
    );
  }
  return (
    <form
      className="action"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!reason.trim()) {
          setMissing('Give the reason for the halt.');
          return;
        }
        setMissing(undefined);
        if (confirmed(`Halt trading on account ${n} for "${reason.trim()}"? New orders are refused until it is resumed.`)) halt.mutate();
      }}
    >
      <TextField label="Halt reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} error={reasonError} hint="New orders are refused; open positions stay." />
      <button type="submit" className="secondary" disabled={halt.isPending}>
        Halt
      </button>
      <ControlError error={halt.error} shown={reasonError !== undefined} />
    </form>
  );
}

/** SPEC 14: a breached account active again in the same attempt (the breach stays on record). Shown for breached accounts. */
export function ReinstateControl({ account, settle }: ControlProps) {
  const n = account.number;
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState<string>();
  const reinstate = useMutation({
    mutationFn: () => panelApi.accounts.reinstate(n, reason.trim()),
    onSuccess: () => {
      setReason('');
      settle(`Account ${n} is active again.`);
    },
  });
  const reasonError = missing ?? fieldError(reinstate.error, 'reason');
  return (
    <form
      className="action"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!reason.trim()) {
          setMissing('Give the reason for the reinstatement.');
          return;
        }
        setMissing(undefined);
        if (confirmed(`Reinstate account ${n} for "${reason.trim()}"? It is active again with its balance as the breach left it.`)) reinstate.mutate();
      }}
    >
      <TextField
        label="Reinstatement reason"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        maxLength={500}
        error={reasonError}
        hint="The breach stays on record, marked reinstated."
      />
      <button type="submit" className="secondary" disabled={reinstate.isPending}>
        Reinstate
      </button>
      <ControlError error={reinstate.error} shown={reasonError !== undefined} />
    </form>
  );
}

/** SPEC 14: a balance adjustment (a balance deal), positive credits and negative debits, with its reason. */
export function AdjustControl({ account, settle }: ControlProps) {
  const n = account.number;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [problems, setProblems] = useState<{ amount?: string; reason?: string }>({});
  const adjust = useMutation({
    mutationFn: () => panelApi.accounts.adjust(n, Number(amount), reason.trim()),
    onSuccess: (a) => {
      setAmount('');
      setReason('');
      settle(`Balance adjusted by ${formatAmount(a.amount, account.currency)}: it is ${formatAmount(a.balance_after, account.currency)} now.`);
    },
  });
  const amountError = problems.amount ?? fieldError(adjust.error, 'amount');
  const reasonError = problems.reason ?? fieldError(adjust.error, 'reason');
  return (
    <form
      className="action"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const value = Number(amount);
        const next = {
          amount: amount.trim() === '' || !Number.isFinite(value) || value === 0 ? 'Enter an amount other than 0: positive credits, negative debits.' : undefined,
          reason: reason.trim() ? undefined : 'Give the reason for the adjustment.',
        };
        setProblems(next);
        if (next.amount || next.reason) return;
        const what = value > 0 ? `Credit ${formatAmount(value, account.currency)} to` : `Debit ${formatAmount(-value, account.currency)} from`;
        if (confirmed(`${what} account ${n} for "${reason.trim()}"? The account is evaluated at once: a debit can breach it.`)) adjust.mutate();
      }}
    >
      <TextField
        label="Adjustment amount"
        type="number"
        step="0.01"
        inputMode="decimal"
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        hint={`In ${account.currency}: positive credits, negative debits.`}
        error={amountError}
      />
      <TextField label="Adjustment reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} error={reasonError} />
      <button type="submit" className="secondary" disabled={adjust.isPending}>
        Adjust balance
      </button>
      <ControlError error={adjust.error} shown={amountError !== undefined || reasonError !== undefined} />
    </form>
  );
}
