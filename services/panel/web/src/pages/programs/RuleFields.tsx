import { CheckboxField, SelectField, TextField } from '../../components/Field';
import type { FieldErrors, PhaseDraft } from './program-form';
import type { RulesDraft } from './rule-pack-form';

/**
 * A phase's rule pack (SPEC 15) in the program form: limits on orders, time rules, the daily lock
 * and profit cap, trading hours and the phase's trading day. Every field empty is every rule off.
 */
export function RuleFields({
  index,
  phase,
  errors,
  onChange,
}: {
  index: number;
  phase: PhaseDraft;
  errors: FieldErrors;
  onChange: (next: PhaseDraft) => void;
}) {
  const err = (field: keyof RulesDraft) => errors[`phases[${index}].${field}`];
  const set = <K extends keyof RulesDraft>(field: K, value: RulesDraft[K]) => onChange({ ...phase, [field]: value });
  const number = (field: keyof RulesDraft, label: string, hint: string) => (
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
  const text = (field: keyof RulesDraft, label: string, hint: string, placeholder?: string) => (
    <TextField label={label} value={String(phase[field])} placeholder={placeholder} onChange={(e) => set(field, e.target.value as never)} error={err(field)} hint={hint} />
  );
  return (
    <div className="rule-pack">
      <h3>Rule pack</h3>
      <div className="form-grid">
        {number('max_open_positions', 'Max open positions', 'Open and pending; empty: no limit.')}
        {number('max_trades_per_day', 'Max trades per day', 'Positions opened per trading day; empty: no limit.')}
        {number('max_risk_per_trade_pct', 'Max risk per trade (%)', 'Loss at the stop loss, of the initial balance; empty: off.')}
        {number('news_blackout_minutes', 'News blackout (minutes)', 'Before and after a news event; empty: off.')}
        {number('max_phase_days', 'Max phase days', 'Breached when not passed within; empty: no limit.')}
        {number('inactivity_days', 'Inactivity days', 'Breached after this long without a position opened; empty: off.')}
        <SelectField
          label="Daily loss action"
          value={phase.daily_loss_action}
          onChange={(e) => set('daily_loss_action', e.target.value as RulesDraft['daily_loss_action'])}
          error={err('daily_loss_action')}
        >
          <option value="breach">breach the account</option>
          <option value="lock">lock for the day</option>
        </SelectField>
        {number('daily_profit_cap_pct', 'Daily profit cap (%)', "Of the initial balance; reached, the day's trading stops. Empty: off.")}
        {text('trading_hours_start', 'Trading hours start', 'HH:MM; empty: orders at any time.', '09:30')}
        {text('trading_hours_end', 'Trading hours end', 'HH:MM, after the start.', '16:00')}
        {text('trading_hours_timezone', 'Trading hours time zone', 'IANA, e.g. America/New_York.')}
        {text('trading_day_timezone', 'Trading day time zone', "IANA; empty: the service's (UTC).")}
        {text('trading_day_start', 'Trading day start', 'HH:MM the day rolls over at; empty: 00:00.', '17:00')}
      </div>
      <div className="checks-row">
        <CheckboxField label="Stop loss required" checked={phase.stop_loss_required} onChange={(e) => set('stop_loss_required', e.target.checked)} />
        <CheckboxField label="Close positions at the session end" checked={phase.close_at_session_end} onChange={(e) => set('close_at_session_end', e.target.checked)} />
      </div>
      {err('close_at_session_end') ? <p className="field-error">{err('close_at_session_end')}</p> : null}
    </div>
  );
}
