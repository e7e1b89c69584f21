import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import { TextField } from '../../components/Field';
import { errorText } from '../../components/QueryState';
import { PhaseFields } from './PhaseFields';
import { emptyProgram, errorKeyOf, MAX_PHASES, newPhase, toProgramInput, type FieldErrors, type ProgramDraft } from './program-form';

/** Creates a program, or edits one (the next version), phase by phase. */
export function ProgramForm({ editing, initial, onDone }: { editing?: string; initial?: ProgramDraft; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ProgramDraft>(initial ?? emptyProgram());
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (input: NonNullable<ReturnType<typeof toProgramInput>['input']>) =>
      editing ? panelApi.programs.update(editing, input) : panelApi.programs.create(input),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.programs() });
      onDone();
    },
    onError: (error) => {
      if (error instanceof ApiError && error.param) setErrors({ [errorKeyOf(error.param)]: errorText(error) });
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { input, errors: found } = toProgramInput(draft);
    setErrors(found);
    if (input) save.mutate(input);
  };
  const general = save.error && !(save.error instanceof ApiError && save.error.param) ? errorText(save.error) : undefined;
  const title = editing ? `Edit program ${editing}` : 'New program';

  return (
    <section className="card">
      <h2 id="program-form-title">{title}</h2>
      <form onSubmit={submit} noValidate>
        <div className="form-grid">
          <TextField
            label="Name"
            value={draft.name}
            readOnly={!!editing}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            error={errors.name}
            hint="Lower-case letters, digits and dashes."
          />
          <TextField label="Description" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} error={errors.description} />
          <TextField
            label="Initial balance"
            type="number"
            inputMode="decimal"
            value={draft.initial_balance}
            onChange={(e) => setDraft({ ...draft, initial_balance: e.target.value })}
            error={errors.initial_balance}
            hint="USD"
          />
        </div>
        {draft.phases.map((phase, i) => (
          <PhaseFields
            key={i}
            index={i}
            phase={phase}
            errors={errors}
            onChange={(next) => setDraft({ ...draft, phases: draft.phases.map((p, j) => (j === i ? next : p)) })}
            onRemove={draft.phases.length > 1 ? () => setDraft({ ...draft, phases: draft.phases.filter((_, j) => j !== i) }) : undefined}
          />
        ))}
        {errors.phases ? <p className="field-error">{errors.phases}</p> : null}
        <div className="actions">
          {draft.phases.length < MAX_PHASES ? (
            <button type="button" className="secondary" onClick={() => setDraft({ ...draft, phases: [...draft.phases, newPhase(draft.phases.length)] })}>
              Add phase
            </button>
          ) : null}
          <button type="submit" disabled={save.isPending}>
            {editing ? 'Save program' : 'Create program'}
          </button>
          <button type="button" className="secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
        {Object.keys(errors).length > 0 ? (
          <p className="error" role="alert">
            Some fields need attention: see the messages next to them.
          </p>
        ) : null}
        {general ? (
          <p className="error" role="alert">
            {general}
          </p>
        ) : null}
      </form>
    </section>
  );
}
