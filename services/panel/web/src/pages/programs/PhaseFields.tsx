import { CheckboxField, SelectField, TextField } from '../../components/Field';
import type { FieldErrors, PhaseDraft } from './program-form';
import { RuleFields } from './RuleFields';

/** One phase of the program form: a group named "Phase N" whose fields show their own errors. */
export function PhaseFields({
  index,
  phase,
  errors,
  onChange,
  onRemove,
}: {
  index: number;
  phase: PhaseDraft;
  errors: FieldErrors;
  onChange: (next: PhaseDraft) => void;
  onRemove?: () => void;
}) {
  const err = (field: keyof PhaseDraft) => errors[`phases[${index}].${field}`];
  const set = <K extends keyof PhaseDraft>(field: K, value: PhaseDraft[K]) => onChange({ ...phase, [field]: value });
  const number = (field: keyof PhaseDraft, label: string, hint?: string) => (
    <TextField
      label={label}
      type="number"
      inputMode="decimal"
      step="any"
      value={String(phase[field])}
      onChange={(e) => set(field, e.target.value as never)}
      error={err(field)}
      hint={hint}
    />
  );
  return (
    <fieldset className="phase">
      <legend>Phase {index + 1}</legend>
      <div className="form-grid">
        <TextField label="Phase name" value={phase.name} maxLength={40} onChange={(e) => set('name', e.target.value)} error={err('name')} />
        <SelectField label="Kind" value={phase.kind} onChange={(e) => set('kind', e.target.value as PhaseDraft['kind'])} error={err('kind')}>
          <option value="evaluation">evaluation</option>
          <option value="funded">funded</option>
        </SelectField>
        {phase.kind === 'evaluation' ? number('profit_target_pct', 'Profit target (%)') : number('profit_split_pct', 'Profit split (%)', "The trader's share of a payout.")}
        {number('min_trading_days', 'Minimum trading days')}
        {number('consistency_pct', 'Consistency (%)', 'Empty: no consistency rule.')}
        {number('max_daily_loss_pct', 'Max daily loss (%)')}
        <SelectField label="Daily loss basis" value={phase.daily_loss_basis} onChange={(e) => set('daily_loss_basis', e.target.value as PhaseDraft['daily_loss_basis'])} error={err('daily_loss_basis')}>
          <option value="balance">balance</option>
          <option value="equity">equity</option>
          <option value="higher">higher of the two</option>
        </SelectField>
        {number('max_total_loss_pct', 'Max total loss (%)')}
        <SelectField label="Total loss mode" value={phase.total_loss_mode} onChange={(e) => set('total_loss_mode', e.target.value as PhaseDraft['total_loss_mode'])} error={err('total_loss_mode')}>
          <option value="static">static</option>
          <option value="trailing">trailing</option>
          <option value="trailing_eod">trailing end of day</option>
        </SelectField>
        {number('leverage', 'Leverage (1:N)')}
        {number('max_lots_per_order', 'Max lots per order')}
        <TextField
          label="Allowed symbols"
          value={phase.allowed_symbols}
          onChange={(e) => set('allowed_symbols', e.target.value)}
          error={err('allowed_symbols')}
          hint="Comma-separated; empty: every instrument."
        />
        {number('flag_lots_above', 'Flag orders above (lots)', 'Empty: no flag.')}
        {number('warning_at_pct', 'Warning at (% of allowance)', 'Empty: no warning.')}
      </div>
      <div className="checks-row">
        <CheckboxField label="Trailing floor stops at the initial balance" checked={phase.trailing_stops_at_initial} onChange={(e) => set('trailing_stops_at_initial', e.target.checked)} />
        <CheckboxField label="Flag weekend holding" checked={phase.flag_weekend_holding} onChange={(e) => set('flag_weekend_holding', e.target.checked)} />
        {phase.kind === 'funded' ? (
          <>
            <CheckboxField
              label="Payouts wait for approval"
              checked={phase.payout_requires_approval}
              onChange={(e) => set('payout_requires_approval', e.target.checked)}
            />
            <CheckboxField label="Payouts only to KYC-verified traders" checked={phase.requires_kyc} onChange={(e) => set('requires_kyc', e.target.checked)} />
          </>
        ) : null}
      </div>
      {err('payout_requires_approval') ?? err('requires_kyc') ? <p className="field-error">{err('payout_requires_approval') ?? err('requires_kyc')}</p> : null}
      <RuleFields index={index} phase={phase} errors={errors} onChange={onChange} />
      {onRemove ? (
        <button type="button" className="secondary" onClick={onRemove} aria-label={`Remove phase ${index + 1}`}>
          Remove phase
        </button>
      ) : null}
    </fieldset>
  );
}
