import { z } from 'zod';

/**
 * SPEC 15's rule pack in its REST shape, written once: the phase fields a client sends (with
 * their checks and the `param` each problem names), the fields every phase answers, and their off
 * values (null or false: a phase without them, stored before them or not, behaves as before).
 * program.ts spreads these into the phase; the report's terms section shows the same fields.
 */

export const DAILY_LOSS_ACTIONS = ['breach', 'lock'] as const;
export type DailyLossAction = (typeof DAILY_LOSS_ACTIONS)[number];

/** The rules a refused order names (order_rejected, order.rejected's `rule`, the preview's rejections), SPEC 9, 14 and 15. */
export const PRE_ORDER_RULES = [
  'halted',
  'daily_lock',
  'daily_profit_cap',
  'trading_hours',
  'news_blackout',
  'max_lots_per_order',
  'symbol_not_allowed',
  'stop_loss_required',
  'max_risk_per_trade',
  'max_open_positions',
  'max_trades_per_day',
  'insufficient_margin',
] as const;
export type PreOrderRule = (typeof PRE_ORDER_RULES)[number];

/** The rules that lock an account for the rest of its trading day (account.locked's `rule`). */
export const LOCK_RULES = ['daily_lock', 'daily_profit_cap'] as const;
export type LockRule = (typeof LOCK_RULES)[number];

const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const TIME_MESSAGE = 'must be a time of day HH:MM, 00:00 to 23:59';

/** "HH:MM" as minutes after midnight (the caller checked the form). */
export function minutesOfDay(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** The zone's canonical IANA name as this runtime's Intl knows it; undefined when Intl does not know it. */
export function canonicalTimeZone(zone: string): string | undefined {
  if (zone.length === 0 || zone.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const timeOfDaySchema = z.string({ invalid_type_error: TIME_MESSAGE }).max(5, TIME_MESSAGE).regex(TIME_OF_DAY, TIME_MESSAGE);
const ZONE_MESSAGE = 'must be an IANA time zone such as America/New_York';

/** An IANA zone (checked with Intl), answered in its canonical spelling. */
const timeZoneSchema = z
  .string({ invalid_type_error: ZONE_MESSAGE })
  .max(64, ZONE_MESSAGE)
  .regex(/^[A-Za-z][A-Za-z0-9_+\-/]*$/, ZONE_MESSAGE)
  .transform((zone, ctx) => {
    const canonical = canonicalTimeZone(zone);
    if (canonical === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: ZONE_MESSAGE });
      return z.NEVER;
    }
    return canonical;
  });

const wholeNumber = (min: number, max: number) =>
  z
    .number({ invalid_type_error: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`);

export interface TradingHours {
  /** HH:MM, inclusive. */
  start: string;
  /** HH:MM, exclusive; after start (no window across midnight). */
  end: string;
  timezone: string;
}

export interface TradingDay {
  timezone: string;
  /** HH:MM: the wall time the trading day rolls over at. */
  start: string;
}

const tradingHoursSchema = z
  .object({ start: timeOfDaySchema, end: timeOfDaySchema, timezone: timeZoneSchema })
  .strict()
  .superRefine((hours, ctx) => {
    if (TIME_OF_DAY.test(hours.start) && TIME_OF_DAY.test(hours.end) && minutesOfDay(hours.end) <= minutesOfDay(hours.start)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['end'], message: 'must be after start (a window does not cross midnight)' });
    }
  });

const tradingDaySchema = z.object({ timezone: timeZoneSchema.default('UTC'), start: timeOfDaySchema.default('00:00') }).strict();

/** The rule pack's fields as a client sends them; omitted = off. */
export const rulePackInputFields = {
  max_open_positions: wholeNumber(1, 10_000).nullable().default(null),
  max_trades_per_day: wholeNumber(1, 10_000).nullable().default(null),
  stop_loss_required: z.boolean().default(false),
  max_risk_per_trade_pct: z
    .number({ invalid_type_error: 'must be a number' })
    .finite()
    .min(0.01, 'must be from 0.01 to 100')
    .max(100, 'must be from 0.01 to 100')
    .nullable()
    .default(null),
  news_blackout_minutes: wholeNumber(1, 240).nullable().default(null),
  max_phase_days: wholeNumber(1, 3650).nullable().default(null),
  inactivity_days: wholeNumber(1, 3650).nullable().default(null),
  trading_hours: tradingHoursSchema.nullable().default(null),
  close_at_session_end: z.boolean().default(false),
  daily_loss_action: z.enum(DAILY_LOSS_ACTIONS).default('breach'),
  daily_profit_cap_pct: z
    .number({ invalid_type_error: 'must be a number' })
    .finite()
    .gt(0, 'must be greater than 0')
    .max(1000, 'must be at most 1000')
    .nullable()
    .default(null),
  trading_day: tradingDaySchema.nullable().default(null),
};

/** The rule pack's fields of a phase as stored and answered. */
export interface RulePackFields {
  max_open_positions: number | null;
  max_trades_per_day: number | null;
  stop_loss_required: boolean;
  max_risk_per_trade_pct: number | null;
  news_blackout_minutes: number | null;
  max_phase_days: number | null;
  inactivity_days: number | null;
  trading_hours: TradingHours | null;
  close_at_session_end: boolean;
  daily_loss_action: DailyLossAction;
  daily_profit_cap_pct: number | null;
  /** null: the service's trading day (UTC, rolling over at TRADING_DAY_ROLLOVER_HOUR_UTC, 00:00 unless set). */
  trading_day: TradingDay | null;
}

/** Every rule off: what a phase stored before the rule pack means. */
export const RULE_PACK_OFF: RulePackFields = {
  max_open_positions: null,
  max_trades_per_day: null,
  stop_loss_required: false,
  max_risk_per_trade_pct: null,
  news_blackout_minutes: null,
  max_phase_days: null,
  inactivity_days: null,
  trading_hours: null,
  close_at_session_end: false,
  daily_loss_action: 'breach',
  daily_profit_cap_pct: null,
  trading_day: null,
};

/** A phase's rule pack problems beyond each field's own: close_at_session_end needs trading_hours. */
export function rulePackIssues(phase: Pick<RulePackFields, 'close_at_session_end' | 'trading_hours'>): Array<{ field: keyof RulePackFields; message: string }> {
  if (phase.close_at_session_end && phase.trading_hours === null) {
    return [{ field: 'close_at_session_end', message: 'needs trading_hours (positions close at its end)' }];
  }
  return [];
}

/** The fields as answered (phases, the report's terms), with what each means. */
export const rulePackAnswerFields = {
  max_open_positions: z.number().int().nullable().describe('SPEC 15: an order making open + pending positions exceed it is refused (rule max_open_positions); null: off'),
  max_trades_per_day: z.number().int().nullable().describe('SPEC 15: positions opened per trading day (pending orders count); the next order is refused (rule max_trades_per_day); null: off'),
  stop_loss_required: z.boolean().describe('SPEC 15: an order without stop_loss is refused (rule stop_loss_required)'),
  max_risk_per_trade_pct: z
    .number()
    .nullable()
    .describe('SPEC 15: an order losing more than this % of the initial balance at its stop loss, or without one, is refused (rule max_risk_per_trade); null: off'),
  news_blackout_minutes: z
    .number()
    .int()
    .nullable()
    .describe('SPEC 15: orders on a symbol whose currency a news event lists are refused from this many minutes before it to this many after, both ends included (rule news_blackout); null: off'),
  max_phase_days: z.number().int().nullable().describe('SPEC 15: not passed within this many days of 24 hours from the phase (attempt) start: breached (rule time_limit); null: off'),
  inactivity_days: z
    .number()
    .int()
    .nullable()
    .describe('SPEC 15: no position opened for this many days of 24 hours (from the last one opened, or the phase start): breached (rule inactivity); null: off'),
  trading_hours: z
    .object({ start: z.string(), end: z.string(), timezone: z.string() })
    .strict()
    .nullable()
    .describe('SPEC 15: orders only from start (inclusive) to end (exclusive), wall time in timezone, every day (rule trading_hours); null: off'),
  close_at_session_end: z.boolean().describe("SPEC 15: open positions close at trading_hours' end (close reason session_end), pending orders are cancelled"),
  daily_loss_action: z
    .enum(DAILY_LOSS_ACTIONS)
    .describe('SPEC 15: lock: crossing the daily loss closes the positions and locks the account until the next trading day (rule daily_lock) instead of breaching it'),
  daily_profit_cap_pct: z
    .number()
    .nullable()
    .describe("SPEC 15: once the day's profit (equity - daily reference) reaches this % of the initial balance, positions close and the account is locked for the day (rule daily_profit_cap); null: off"),
  trading_day: z
    .object({ timezone: z.string(), start: z.string() })
    .strict()
    .nullable()
    .describe("SPEC 15: when the phase's trading day rolls over (wall time, daylight saving included); null: the service's (UTC 00:00 unless configured)"),
};
