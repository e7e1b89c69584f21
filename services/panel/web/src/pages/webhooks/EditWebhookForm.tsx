import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Webhook, WebhookUpdated } from '../../api/types';
import { useMeta } from '../../app/session';
import { CheckboxGroup, TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';

const FIELDS = ['url', 'events', 'description'] as const;

/**
 * Edit an endpoint (SPEC 17's PATCH): its URL, event types and description, under registration's
 * rules; the secret stays. The server's `param` lands on its field; registration's warnings (a
 * port the egress does not allow) are shown once saved.
 */
export function EditWebhookForm({ webhook, onDone }: { webhook: Webhook; onDone: (saved?: WebhookUpdated) => void }) {
  const queryClient = useQueryClient();
  const meta = useMeta();
  const [url, setUrl] = useState(webhook.url);
  const [events, setEvents] = useState<string[]>(webhook.events);
  const [description, setDescription] = useState(webhook.description ?? '');
  const [urlError, setUrlError] = useState<string>();
  const save = useMutation({
    mutationFn: () => panelApi.webhooks.update(webhook.id, { url: url.trim(), events, description: description === '' ? null : description }),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhook(webhook.id) });
      onDone(saved);
    },
  });
  const serverError = save.error instanceof ApiError ? save.error : undefined;
  const fieldError = (field: (typeof FIELDS)[number]) => (serverError?.param === field ? errorText(serverError) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!/^https:\/\/\S+$/i.test(url.trim())) {
      setUrlError('Enter an https:// URL.');
      return;
    }
    setUrlError(undefined);
    save.mutate();
  };

  return (
    <form className="edit-webhook" onSubmit={submit} noValidate aria-label={`Edit ${webhook.url}`}>
      <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={urlError ?? fieldError('url')} />
      <TextField
        label="Description"
        value={description}
        maxLength={256}
        onChange={(e) => setDescription(e.target.value)}
        hint="What the endpoint is for, one line; empty: none."
        error={fieldError('description')}
      />
      <CheckboxGroup legend="Event types" options={meta.event_types} value={events} onChange={setEvents} hint="None checked: every event type." error={fieldError('events')} />
      <div className="actions">
        <button type="submit" className="small" disabled={save.isPending}>
          Save changes
        </button>
        <button type="button" className="secondary small" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
      {save.error && !FIELDS.some((f) => serverError?.param === f) ? (
        <p className="error" role="alert">
          {errorText(save.error)}
        </p>
      ) : null}
    </form>
  );
}
