import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { ApiKey } from '../../api/types';
import { TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';

const parseLimit = (raw: string): number | null | undefined => {
  if (raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};

/** A key's own read and write limits per minute (SPEC section 12); empty: the deployment's default. */
export function KeyLimitsForm({ apiKey, onDone }: { apiKey: ApiKey; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [read, setRead] = useState(apiKey.limits?.read?.toString() ?? '');
  const [write, setWrite] = useState(apiKey.limits?.write?.toString() ?? '');
  const [errors, setErrors] = useState<{ read?: string; write?: string }>({});
  const save = useMutation({
    mutationFn: ({ r, w }: { r: number | null; w: number | null }) => panelApi.keys.setLimits(apiKey.id, r, w),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys() });
      onDone();
    },
  });
  const serverError = save.error instanceof ApiError ? save.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseLimit(read);
    const w = parseLimit(write);
    const found = { read: r === undefined ? 'Enter a whole number of at least 1, or leave empty.' : undefined, write: w === undefined ? 'Enter a whole number of at least 1, or leave empty.' : undefined };
    setErrors(found);
    if (r === undefined || w === undefined) return;
    save.mutate({ r, w });
  };
  return (
    <form className="inline-form limits-form" onSubmit={submit} noValidate>
      <TextField label={`Reads per minute for ${apiKey.name}`} type="number" min={1} inputMode="numeric" value={read} onChange={(e) => setRead(e.target.value)} error={errors.read ?? (serverError?.param === 'read' ? errorText(serverError) : undefined)} hint="Empty: the default." />
      <TextField label={`Writes per minute for ${apiKey.name}`} type="number" min={1} inputMode="numeric" value={write} onChange={(e) => setWrite(e.target.value)} error={errors.write ?? (serverError?.param === 'write' ? errorText(serverError) : undefined)} hint="Empty: the default." />
      <div className="actions">
        <button type="submit" className="small" disabled={save.isPending}>
          Save limits
        </button>
        <button type="button" className="secondary small" onClick={onDone}>
          Cancel
        </button>
      </div>
      {save.error && !serverError?.param ? <p className="error" role="alert">{errorText(save.error)}</p> : null}
    </form>
  );
}
