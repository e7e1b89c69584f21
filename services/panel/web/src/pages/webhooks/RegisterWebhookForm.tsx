import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import { useMeta } from '../../app/session';
import { CheckboxGroup, TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';
import { ShownOnce } from '../../components/ShownOnce';

export function RegisterWebhookForm() {
  const queryClient = useQueryClient();
  const meta = useMeta();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [description, setDescription] = useState('');
  const [urlError, setUrlError] = useState<string>();
  const register = useMutation({
    mutationFn: () => panelApi.webhooks.register(url.trim(), events, description === '' ? null : description),
    onSuccess: () => {
      setUrl('');
      setEvents([]);
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
    },
  });
  const serverError = register.error instanceof ApiError ? register.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!/^https:\/\/\S+$/i.test(url.trim())) {
      setUrlError('Enter an https:// URL.');
      return;
    }
    setUrlError(undefined);
    register.mutate();
  };

  return (
    <section className="card">
      <h2 id="register-title">Register an endpoint</h2>
      {register.data ? (
        <ShownOnce
          title="Signing secret"
          value={register.data.secret}
          note={`The secret of ${register.data.url} is shown only now: store it where your receiver can verify signatures with it.`}
          onDone={() => register.reset()}
        />
      ) : null}
      <form onSubmit={submit} noValidate>
        <TextField
          label="URL"
          type="url"
          placeholder="https://hooks.example.com/propdesk"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={urlError ?? (serverError?.param === 'url' ? errorText(serverError) : undefined)}
        />
        <TextField
          label="Description"
          value={description}
          maxLength={256}
          onChange={(e) => setDescription(e.target.value)}
          hint="Optional: what the endpoint is for, one line."
          error={serverError?.param === 'description' ? errorText(serverError) : undefined}
        />
        <CheckboxGroup
          legend="Event types"
          options={meta.event_types}
          value={events}
          onChange={setEvents}
          hint="None checked: every event type."
          error={serverError?.param === 'events' ? errorText(serverError) : undefined}
        />
        <div className="actions">
          <button type="submit" disabled={register.isPending}>
            Register
          </button>
        </div>
        {register.error && !(serverError?.param === 'url' || serverError?.param === 'events' || serverError?.param === 'description') ? (
          <p className="error" role="alert">
            {errorText(register.error)}
          </p>
        ) : null}
      </form>
    </section>
  );
}
