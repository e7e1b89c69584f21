import type { ProgramPhase } from '../../api/types';

/**
 * SPEC 15's rule pack in the program form: each field as typed (empty = the rule is off) and its
 * conversion to the phase's fields. Checks mirror the SPEC's so a mistake shows next to its field
 * at once; the server checks again, and its `param` (phases[0].trading_hours.timezone) lands on the
 * same field.
 */
export interface RulesDraft {
  max_open_positions: string;
  max_trades_per_day: string;
  stop_loss_required: boolean;
  max_risk_per_trade_pct: string;
  news_blackout_minutes: string;
  max_phase_days: string;
  inactivity_days: string;
  trading_hours_start: string;
  trading_hours_end: string;
  trading_hours_timezone: string;
  close_at_session_end: boolean;
  daily_loss_action: 'breach' | 'lock';
  daily_profit_cap_pct: string;
  trading_day_timezone: string;
  trading_day_start: string;
}

export const noRules = (): RulesDraft => ({
  max_open_positions: '',
  max_trades_per_day: '',
  stop_loss_required: false,
  max_risk_per_trade_pct: '',
  news_blackout_minutes: '',
  max_phase_days: '',
  inactivity_days: '',
  trading_hours_start: '',
  trading_hours_end: '',
  trading_hours_timezone: '',
  close_at_session_end: false,
  daily_loss_action: 'breach',
  daily_profit_cap_pct: '',
  trading_day_timezone: '',
  trading_day_start: '',
});

const text = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

export function rulesDraftOf(p: ProgramPhase): RulesDraft {
  return {
    max_open_positions: text(p.max_open_positions),
    max_trades_per_day: text(p.max_trades_per_day),
    stop_loss_required: p.stop_loss_required ?? false,
    max_risk_per_trade_pct: text(p.max_risk_per_trade_pct),
    news_blackout_minutes: text(p.news_blackout_minutes),
    max_phase_days: text(p.max_phase_days),
    inactivity_days: text(p.inactivity_days),
    trading_hours_start: p.trading_hours?.start ?? '',
    trading_hours_end: p.trading_hours?.end ?? '',
    trading_hours_timezone: p.trading_hours?.timezone ?? '',
    close_at_session_end: p.close_at_session_end ?? false,
    daily_loss_action: p.daily_loss_action ?? 'breach',
    daily_profit_cap_pct: text(p.daily_profit_cap_pct),
    trading_day_timezone: p.trading_day?.timezone ?? '',
    trading_day_start: p.trading_day?.start ?? '',
  };
}

/** The draft field each server `param` of the rule pack lands on (the nested objects are three fields here). */
export const RULE_FIELD_OF_PARAM: Record<string, keyof RulesDraft> = {
  'trading_hours.start': 'trading_hours_start',
  'trading_hours.end': 'trading_hours_end',
  'trading_hours.timezone': 'trading_hours_timezone',
  trading_hours: 'trading_hours_start',
  'trading_day.timezone': 'trading_day_timezone',
  'trading_day.start': 'trading_day_start',
  trading_day: 'trading_day_timezone',
};

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

type Rules = Pick<
  ProgramPhase,
  | 'max_open_positions'
  | 'max_trades_per_day'
  | 'stop_loss_required'
  | 'max_risk_per_trade_pct'
  | 'news_blackout_minutes'
  | 'max_phase_days'
  | 'inactivity_days'
  | 'trading_hours'
  | 'close_at_session_end'
  | 'daily_loss_action'
  | 'daily_profit_cap_pct'
  | 'trading_day'
>;

/** Validates and converts one phase's rules; `error(field, message)` records a problem under the field's path. */
export function rulesInput(
  r: RulesDraft,
  error: (field: keyof RulesDraft, message: string) => void,
): Rules {
  const optional = (field: keyof RulesDraft, rule: (n: number) => boolean, message: string): number | null => {
    const raw = String(r[field]).trim();
    if (raw === '') return null;
    const value = Number(raw);
    if (!Number.isFinite(value) || !rule(value)) error(field, message);
    return value;
  };
  const whole = (min: number, max: number) => (n: number) => Number.isInteger(n) && n >= min && n <= max;
  const [start, end, zone] = [r.trading_hours_start.trim(), r.trading_hours_end.trim(), r.trading_hours_timezone.trim()];
  let tradingHours: Rules['trading_hours'] = null;
  if (start !== '' || end !== '' || zone !== '') {
    if (!TIME.test(start)) error('trading_hours_start', 'Enter a time HH:MM, 00:00 to 23:59.');
    if (!TIME.test(end)) error('trading_hours_end', 'Enter a time HH:MM, 00:00 to 23:59.');
    else if (TIME.test(start) && end <= start) error('trading_hours_end', 'End after the start (a session does not cross midnight).');
    if (!knownZone(zone)) error('trading_hours_timezone', 'Enter an IANA time zone such as America/New_York.');
    tradingHours = { start, end, timezone: zone };
  }
  if (r.close_at_session_end && tradingHours === null) error('close_at_session_end', 'Needs trading hours: positions close at their end.');
  const [dayZone, dayStart] = [r.trading_day_timezone.trim(), r.trading_day_start.trim()];
  let tradingDay: Rules['trading_day'] = null;
  if (dayZone !== '' || dayStart !== '') {
    if (!knownZone(dayZone || 'UTC')) error('trading_day_timezone', 'Enter an IANA time zone such as America/New_York.');
    if (dayStart !== '' && !TIME.test(dayStart)) error('trading_day_start', 'Enter a time HH:MM, 00:00 to 23:59.');
    tradingDay = { timezone: dayZone || 'UTC', start: dayStart || '00:00' };
  }
  return {
    max_open_positions: optional('max_open_positions', whole(1, 10_000), 'Enter a whole number, 1 or more, or leave empty.'),
    max_trades_per_day: optional('max_trades_per_day', whole(1, 10_000), 'Enter a whole number, 1 or more, or leave empty.'),
    stop_loss_required: r.stop_loss_required,
    max_risk_per_trade_pct: optional('max_risk_per_trade_pct', (n) => n >= 0.01 && n <= 100, 'Enter 0.01 to 100, or leave empty.'),
    news_blackout_minutes: optional('news_blackout_minutes', whole(1, 240), 'Enter 1 to 240 minutes, or leave empty.'),
    max_phase_days: optional('max_phase_days', whole(1, 3650), 'Enter a whole number of days, or leave empty.'),
    inactivity_days: optional('inactivity_days', whole(1, 3650), 'Enter a whole number of days, or leave empty.'),
    trading_hours: tradingHours,
    close_at_session_end: r.close_at_session_end,
    daily_loss_action: r.daily_loss_action,
    daily_profit_cap_pct: optional('daily_profit_cap_pct', (n) => n > 0 && n <= 1000, 'Enter a percentage above 0, or leave empty.'),
    trading_day: tradingDay,
  };
}
