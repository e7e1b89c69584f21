import { AppError, canonicalTimeZone, z, type DailyLossAction, type DailyLossBasis, type PhaseKind, type ProgramPhase, type TotalLossMode, type RulePackFields, type TradingDay, type TradingHours } from '@propdesk/kit';

/**
 * A program's evaluation terms: the one terms type of the service. They are frozen into
 * accounts.terms when an account is created, so changing a program here never changes the rules
 * of accounts already issued; the trading rules read them back from the account (parseTerms).
 */
export interface ProgramTerms {
  /** evaluation: has a profit target, passing it ends the phase; funded: no target, pays out. */
  kind: PhaseKind;
  /** Breach when equity falls below the day's reference minus this % of the initial balance. */
  maxDailyLossPct: number;
  /** The daily reference taken at the start of each trading day: balance, equity or the higher. */
  dailyLossBasis: DailyLossBasis;
  /** Breach when equity falls below the total-loss floor (this % of the initial balance). */
  maxTotalLossPct: number;
  /** static: floor from the initial balance; trailing: from peak equity; trailing_eod: from the highest end-of-day balance. */
  totalLossMode: TotalLossMode;
  /** A trailing floor never rises above the initial balance. */
  trailingStopsAtInitial: boolean;
  /** Passed once equity reaches this % over the initial balance and every other objective is met; null (funded) = never. */
  profitTargetPct: number | null;
  minTradingDays: number;
  /** The best trading day's profit may be at most this % of the phase's total profit; null = no such rule. */
  consistencyPct: number | null;
  /** account.warning once this % of a loss allowance is used; null = no warnings. */
  warningAtPct: number | null;
  /** Funded: the trader's share of a payout. */
  profitSplitPct: number | null;
  /** Funded (SPEC 14): a payout is requested, its amount reserved, and waits for the firm's approval. */
  payoutRequiresApproval: boolean;
  /** Funded (SPEC 14): a payout only to a trader whose KYC status is verified. */
  requiresKyc: boolean;
  /** 1:leverage; margin = notional / leverage. */
  leverage: number;
  maxLotsPerOrder: number;
  /** null = every instrument. */
  allowedSymbols: string[] | null;
  /** An order above this many lots raises a flag (trading continues); null = no such flag. */
  flagLotsAbove: number | null;
  /** A position held over the weekend raises a flag. */
  flagWeekendHolding: boolean;
  defaultInitialBalance: number;
  currency: string;
  // SPEC 15, the rule pack: null or false = the rule is off.
  /** Open + pending positions an order may bring the account to. */
  maxOpenPositions: number | null;
  /** Positions opened (and orders pending) per trading day. */
  maxTradesPerDay: number | null;
  stopLossRequired: boolean;
  /** The most an order may lose at its stop loss, as % of the initial balance (an order without one is refused). */
  maxRiskPerTradePct: number | null;
  /** Orders on a symbol a news event concerns are refused from this many minutes before it to this many after. */
  newsBlackoutMinutes: number | null;
  /** Breach (time_limit) when the phase is not passed this many days (of 24 h) after it (its attempt) started. */
  maxPhaseDays: number | null;
  /** Breach (inactivity) when no position was opened for this many days (of 24 h). */
  inactivityDays: number | null;
  /** Orders only inside [start, end) wall time of the zone. */
  tradingHours: TradingHours | null;
  /** Positions close (and pending orders are cancelled) at tradingHours.end. */
  closeAtSessionEnd: boolean;
  /** breach: the daily loss breaches; lock: it closes the positions and locks the account for the day. */
  dailyLossAction: DailyLossAction;
  /** The day's profit that closes the positions and locks the account for the day, % of the initial balance. */
  dailyProfitCapPct: number | null;
  /** The phase's trading day; null: the service's (UTC, TRADING_DAY_ROLLOVER_HOUR_UTC). */
  tradingDay: TradingDay | null;
}

/** Every rule of SPEC 15 off: the built-ins, and terms frozen before the rule pack. */
export const RULES_OFF = {
  maxOpenPositions: null,
  maxTradesPerDay: null,
  stopLossRequired: false,
  maxRiskPerTradePct: null,
  newsBlackoutMinutes: null,
  maxPhaseDays: null,
  inactivityDays: null,
  tradingHours: null,
  closeAtSessionEnd: false,
  dailyLossAction: 'breach',
  dailyProfitCapPct: null,
  tradingDay: null,
} as const satisfies Partial<ProgramTerms>;

export type ProgramName = 'standard' | 'aggressive' | 'swing';

export const DEFAULT_PROGRAM: ProgramName = 'standard';

/** What the built-ins (section 9, one evaluation phase each) share of the section 10 terms. */
const SINGLE_PHASE = {
  kind: 'evaluation',
  dailyLossBasis: 'balance',
  trailingStopsAtInitial: false,
  consistencyPct: null,
  warningAtPct: null,
  profitSplitPct: null,
  payoutRequiresApproval: false,
  requiresKyc: false,
  ...RULES_OFF,
} as const;

export const PROGRAMS: Readonly<Record<ProgramName, Readonly<ProgramTerms>>> = {
  standard: {
    ...SINGLE_PHASE,
    maxDailyLossPct: 5,
    maxTotalLossPct: 10,
    totalLossMode: 'static',
    profitTargetPct: 10,
    minTradingDays: 4,
    leverage: 100,
    maxLotsPerOrder: 50,
    allowedSymbols: null,
    flagLotsAbove: 20,
    flagWeekendHolding: true,
    defaultInitialBalance: 100_000,
    currency: 'USD',
  },
  // Faster evaluation with a tighter, trailing drawdown: the floor follows peak equity.
  aggressive: {
    ...SINGLE_PHASE,
    maxDailyLossPct: 4,
    maxTotalLossPct: 8,
    totalLossMode: 'trailing',
    profitTargetPct: 8,
    minTradingDays: 3,
    leverage: 50,
    maxLotsPerOrder: 20,
    allowedSymbols: null,
    flagLotsAbove: 10,
    flagWeekendHolding: true,
    defaultInitialBalance: 50_000,
    currency: 'USD',
  },
  // Positions may be held over weekends (no flag); lower leverage, longer minimum.
  swing: {
    ...SINGLE_PHASE,
    maxDailyLossPct: 5,
    maxTotalLossPct: 10,
    totalLossMode: 'static',
    profitTargetPct: 10,
    minTradingDays: 5,
    leverage: 30,
    maxLotsPerOrder: 30,
    allowedSymbols: null,
    flagLotsAbove: 20,
    flagWeekendHolding: false,
    defaultInitialBalance: 100_000,
    currency: 'USD',
  },
};

export function isProgramName(value: string): value is ProgramName {
  return Object.prototype.hasOwnProperty.call(PROGRAMS, value);
}

/** Empty = the default program; an unknown name is invalid_request naming `program`. */
export function resolveProgram(name: string | undefined): { name: ProgramName; terms: ProgramTerms } {
  const wanted = name === undefined || name === '' ? DEFAULT_PROGRAM : name;
  if (!isProgramName(wanted)) {
    throw new AppError('invalid_request', `unknown program; expected one of ${Object.keys(PROGRAMS).join(', ')}`, 'program');
  }
  return { name: wanted, terms: { ...PROGRAMS[wanted], allowedSymbols: PROGRAMS[wanted].allowedSymbols?.slice() ?? null } };
}

const standard = PROGRAMS.standard;
const positiveInt = z.number().int().positive();
const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);
const zone = z.string().refine((name) => canonicalTimeZone(name) !== undefined);

/**
 * Frozen terms as stored. Parsed leniently: a missing or malformed field takes the `standard`
 * program's value, so older or partial term sets still evaluate.
 */
const storedTermsSchema = z.object({
  kind: z.enum(['evaluation', 'funded']).catch('evaluation'),
  maxDailyLossPct: z.number().nonnegative().catch(standard.maxDailyLossPct),
  dailyLossBasis: z.enum(['balance', 'equity', 'higher']).catch('balance'),
  maxTotalLossPct: z.number().nonnegative().catch(standard.maxTotalLossPct),
  totalLossMode: z.enum(['static', 'trailing', 'trailing_eod']).catch(standard.totalLossMode),
  trailingStopsAtInitial: z.boolean().catch(false),
  profitTargetPct: z.number().nonnegative().nullable().catch(standard.profitTargetPct),
  minTradingDays: z.number().int().nonnegative().catch(standard.minTradingDays),
  consistencyPct: z.number().positive().nullable().catch(null),
  warningAtPct: z.number().positive().nullable().catch(null),
  profitSplitPct: z.number().positive().nullable().catch(null),
  payoutRequiresApproval: z.boolean().catch(false),
  requiresKyc: z.boolean().catch(false),
  leverage: z.number().positive().catch(standard.leverage),
  maxLotsPerOrder: z.number().positive().catch(standard.maxLotsPerOrder),
  allowedSymbols: z.array(z.string()).nullable().catch(() => standard.allowedSymbols?.slice() ?? null),
  flagLotsAbove: z.number().nonnegative().nullable().catch(standard.flagLotsAbove),
  flagWeekendHolding: z.boolean().catch(standard.flagWeekendHolding),
  defaultInitialBalance: z.number().positive().catch(standard.defaultInitialBalance),
  currency: z.string().catch(standard.currency),
  maxOpenPositions: positiveInt.nullable().catch(null),
  maxTradesPerDay: positiveInt.nullable().catch(null),
  stopLossRequired: z.boolean().catch(false),
  maxRiskPerTradePct: z.number().positive().nullable().catch(null),
  newsBlackoutMinutes: positiveInt.nullable().catch(null),
  maxPhaseDays: positiveInt.nullable().catch(null),
  inactivityDays: positiveInt.nullable().catch(null),
  tradingHours: z.object({ start: timeOfDay, end: timeOfDay, timezone: zone }).nullable().catch(null),
  closeAtSessionEnd: z.boolean().catch(false),
  dailyLossAction: z.enum(['breach', 'lock']).catch('breach'),
  dailyProfitCapPct: z.number().positive().nullable().catch(null),
  tradingDay: z.object({ timezone: zone, start: timeOfDay }).nullable().catch(null),
}) satisfies z.ZodType<ProgramTerms, z.ZodTypeDef, unknown>;

export function parseTerms(raw: unknown): ProgramTerms {
  return storedTermsSchema.parse(raw !== null && typeof raw === 'object' ? raw : {});
}

/** The frozen terms of one phase of a program version. */
export function termsOfPhase(phase: ProgramPhase, defaultInitialBalance: number, currency: string): ProgramTerms {
  return {
    kind: phase.kind,
    maxDailyLossPct: phase.max_daily_loss_pct,
    dailyLossBasis: phase.daily_loss_basis,
    maxTotalLossPct: phase.max_total_loss_pct,
    totalLossMode: phase.total_loss_mode,
    trailingStopsAtInitial: phase.trailing_stops_at_initial,
    profitTargetPct: phase.profit_target_pct,
    minTradingDays: phase.min_trading_days,
    consistencyPct: phase.consistency_pct,
    warningAtPct: phase.warning_at_pct,
    profitSplitPct: phase.profit_split_pct,
    payoutRequiresApproval: phase.payout_requires_approval,
    requiresKyc: phase.requires_kyc,
    leverage: phase.leverage,
    maxLotsPerOrder: phase.max_lots_per_order,
    allowedSymbols: phase.allowed_symbols?.slice() ?? null,
    flagLotsAbove: phase.flag_lots_above,
    flagWeekendHolding: phase.flag_weekend_holding,
    defaultInitialBalance,
    currency,
    maxOpenPositions: phase.max_open_positions,
    maxTradesPerDay: phase.max_trades_per_day,
    stopLossRequired: phase.stop_loss_required,
    maxRiskPerTradePct: phase.max_risk_per_trade_pct,
    newsBlackoutMinutes: phase.news_blackout_minutes,
    maxPhaseDays: phase.max_phase_days,
    inactivityDays: phase.inactivity_days,
    tradingHours: phase.trading_hours && { ...phase.trading_hours },
    closeAtSessionEnd: phase.close_at_session_end,
    dailyLossAction: phase.daily_loss_action,
    dailyProfitCapPct: phase.daily_profit_cap_pct,
    tradingDay: phase.trading_day && { ...phase.trading_day },
  };
}

/** A built-in's one phase in the REST shape (its terms as section 10 spells them). */
export function builtinPhase(terms: ProgramTerms): ProgramPhase {
  return {
    name: 'evaluation',
    kind: 'evaluation',
    profit_target_pct: terms.profitTargetPct,
    min_trading_days: terms.minTradingDays,
    consistency_pct: terms.consistencyPct,
    max_daily_loss_pct: terms.maxDailyLossPct,
    daily_loss_basis: terms.dailyLossBasis,
    max_total_loss_pct: terms.maxTotalLossPct,
    total_loss_mode: terms.totalLossMode,
    trailing_stops_at_initial: terms.trailingStopsAtInitial,
    leverage: terms.leverage,
    max_lots_per_order: terms.maxLotsPerOrder,
    allowed_symbols: terms.allowedSymbols?.slice() ?? null,
    flag_lots_above: terms.flagLotsAbove,
    flag_weekend_holding: terms.flagWeekendHolding,
    warning_at_pct: terms.warningAtPct,
    profit_split_pct: terms.profitSplitPct,
    payout_requires_approval: terms.payoutRequiresApproval,
    requires_kyc: terms.requiresKyc,
    ...rulePackOf(terms),
  };
}

/** The rule pack of frozen terms in its REST shape (a phase, the report's terms section). */
export function rulePackOf(terms: ProgramTerms): RulePackFields {
  return {
    max_open_positions: terms.maxOpenPositions,
    max_trades_per_day: terms.maxTradesPerDay,
    stop_loss_required: terms.stopLossRequired,
    max_risk_per_trade_pct: terms.maxRiskPerTradePct,
    news_blackout_minutes: terms.newsBlackoutMinutes,
    max_phase_days: terms.maxPhaseDays,
    inactivity_days: terms.inactivityDays,
    trading_hours: terms.tradingHours && { ...terms.tradingHours },
    close_at_session_end: terms.closeAtSessionEnd,
    daily_loss_action: terms.dailyLossAction,
    daily_profit_cap_pct: terms.dailyProfitCapPct,
    trading_day: terms.tradingDay && { ...terms.tradingDay },
  };
}
