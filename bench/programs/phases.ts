/**
 * The programs bench's phases (SPEC 10's fields, and SPEC 15's rule pack): custom programs that
 * cover every daily-loss basis and total-loss mode, and the same with every rule of SPEC 15 on.
 */
export interface Phase {
  name: string;
  kind: 'evaluation' | 'funded';
  profit_target_pct: number | null;
  min_trading_days: number;
  consistency_pct: number | null;
  max_daily_loss_pct: number;
  daily_loss_basis: 'balance' | 'equity' | 'higher';
  max_total_loss_pct: number;
  total_loss_mode: 'static' | 'trailing' | 'trailing_eod';
  trailing_stops_at_initial: boolean;
  leverage: number;
  max_lots_per_order: number;
  allowed_symbols: string[] | null;
  flag_lots_above: number | null;
  flag_weekend_holding: boolean;
  warning_at_pct: number | null;
  profit_split_pct: number | null;
  // SPEC 15's rule pack (absent: off).
  max_open_positions?: number | null;
  max_trades_per_day?: number | null;
  stop_loss_required?: boolean;
  max_risk_per_trade_pct?: number | null;
  news_blackout_minutes?: number | null;
  max_phase_days?: number | null;
  inactivity_days?: number | null;
  trading_hours?: { start: string; end: string; timezone: string } | null;
  close_at_session_end?: boolean;
  daily_loss_action?: 'breach' | 'lock';
  daily_profit_cap_pct?: number | null;
  trading_day?: { timezone: string; start: string } | null;
}

const BASES = ['balance', 'equity', 'higher'] as const;
const MODES = ['static', 'trailing', 'trailing_eod'] as const;

/** Custom phase k: every basis and mode, half stopping at initial, warnings on; breaches where standard does (5% daily). */
export function customPhase(k: number, over: Partial<Phase> = {}): Phase {
  return {
    name: `Phase ${k}`,
    kind: 'evaluation',
    profit_target_pct: 8 + (k % 5),
    // At least standard's 4, so that, as with standard, the bench's walks never pass an account.
    min_trading_days: 4 + (k % 3),
    consistency_pct: k % 3 === 0 ? 40 : null,
    max_daily_loss_pct: 5,
    daily_loss_basis: BASES[k % 3],
    max_total_loss_pct: 10 + (k % 3),
    total_loss_mode: MODES[Math.floor(k / 3) % 3],
    trailing_stops_at_initial: k % 2 === 0,
    leverage: 100,
    max_lots_per_order: 50,
    allowed_symbols: null,
    flag_lots_above: 20,
    flag_weekend_holding: k % 2 === 1,
    warning_at_pct: 70 + (k % 20),
    profit_split_pct: null,
    ...over,
  };
}

const ZONES = ['America/New_York', 'Europe/London', 'UTC'] as const;
const DAY_STARTS = ['17:00', '00:00', '22:00'] as const;

/**
 * Custom phase k with every rule of SPEC 15 on: the order limits, the time rules, a daily lock
 * (even k) or breach, a profit cap, trading hours and a trading day in one of three zones.
 */
export function rulePackPhase(k: number, over: Partial<Phase> = {}): Phase {
  return customPhase(k, {
    max_open_positions: 50,
    max_trades_per_day: 50,
    stop_loss_required: k % 2 === 0,
    max_risk_per_trade_pct: 2,
    news_blackout_minutes: 15,
    max_phase_days: 60,
    inactivity_days: 30,
    trading_hours: { start: '00:00', end: '23:59', timezone: ZONES[k % 3] },
    close_at_session_end: k % 2 === 1,
    daily_loss_action: k % 2 === 0 ? 'lock' : 'breach',
    daily_profit_cap_pct: 5,
    trading_day: { timezone: ZONES[k % 3], start: DAY_STARTS[k % 3] },
    ...over,
  });
}
