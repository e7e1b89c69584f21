import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Webhook } from '../../api/types';
import { TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';

/** How far back recover reaches (SPEC 17); the server holds the bound. */
const RECOVER_DAYS = 14;

/** A time as the datetime-local input shows it, in UTC (the panel's times are UTC): 2026-01-31T12:00. */
const utcInput = (time: Date) => time.toISOString().slice(0, 16);

/**
 * Recover (SPEC 17): every delivery of the endpoint that failed since a time (UTC) is attempted
 * again, after the receiver's outage is over. Says how many were queued.
 */
export function RecoverWebhookForm({ webhook, onDone }: { webhook: Webhook; onDone: (redelivered?: number) => void }) {
  const queryClient = useQueryClient();
  const [since, setSince] = useState(() => utcInput(new Date(Date.now() - 86_400_000)));
  const [sinceError, setSinceError] = useState<string>();
  const recover = useMutation({
    mutationFn: (at: string) => panelApi.webhooks.recover(webhook.id, at),
    onSuccess: ({ redelivered }) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhook(webhook.id) });
      onDone(redelivered);
    },
  });
  const serverError = recover.error instanceof ApiError ? recover.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(since) ? new Date(`${since}Z`) : undefined;
    if (!at || Number.isNaN(at.getTime())) {
      setSinceError('Enter a date and time (UTC).');
      return;
    }
    setSinceError(undefined);
    recover.mutate(at.toISOString());
  };

  return (
    <form className="inline-form" onSubmit={submit} noValidate aria-label={`Recover failed deliveries of ${webhook.url}`}>
      <TextField
        label="Failed since (UTC)"
        type="datetime-local"
        value={since}
        onChange={(e) => setSince(e.target.value)}
        hint={`Deliveries that failed since then are attempted again; at most ${RECOVER_DAYS} days back.`}
        error={sinceError ?? (serverError?.param === 'since' ? errorText(serverError) : undefined)}
      />
      <div className="actions">
        <button type="submit" className="small" disabled={recover.isPending}>
          Recover deliveries
        </button>
        <button type="button" className="secondary small" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
      {recover.error && serverError?.param !== 'since' ? (
        <p className="error" role="alert">
          {errorText(recover.error)}
        </p>
      ) : null}
    </form>
  );
}
