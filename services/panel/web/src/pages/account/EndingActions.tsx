import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, panelApi } from '../../api/panel-api';
import type { Account } from '../../api/types';
import { confirmed } from '../../components/confirm';
import { TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';
import { useSettle } from './AccountActions';

/**
 * Breach and Archive end the account's evaluation or its circulation and cannot be undone, so
 * they live apart from the routine actions, at the foot of the page, in a card marked as such.
 * Each asks for confirmation; a breach needs its reason.
 */
export function EndingActions({ account }: { account: Account }) {
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const [done, setDone] = useState('');
  const settle = useSettle(account, setDone);
  const n = account.number;

  const archive = useMutation({ mutationFn: () => panelApi.accounts.archive(n), onSuccess: () => settle(`Account ${n} was archived.`) });
  const breach = useMutation({
    mutationFn: () => panelApi.accounts.breach(n, reason.trim()),
    onSuccess: () => {
      setReason('');
      settle(`Account ${n} was breached.`);
    },
  });
  const busy = archive.isPending || breach.isPending;
  const failure = archive.error ?? breach.error;
  const breachError = breach.error instanceof ApiError && breach.error.param === 'reason' ? errorText(breach.error) : undefined;

  const start = (other: { reset: () => void }) => {
    setDone('');
    other.reset();
  };

  return (
    <section className="card danger-zone" aria-labelledby="ending-title">
      <h2 id="ending-title">End the account</h2>
      <p className="hint">These cannot be undone: a breach ends the evaluation, archiving takes the account out of circulation.</p>
      <div className="action-grid">
        <form
          className="action"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            start(archive);
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
        <div className="action">
          <p className="hint">Take the account out of circulation: it can no longer be traded.</p>
          <button
            type="button"
            className="secondary danger"
            disabled={busy}
            onClick={() => {
              start(breach);
              if (confirmed(`Archive account ${n}? It can no longer be traded.`)) archive.mutate();
            }}
          >
            Archive
          </button>
        </div>
      </div>
      {failure && !breachError ? (
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
