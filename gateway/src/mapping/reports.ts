import { ACCOUNT_STATUSES, DAILY_LOSS_BASES, livemodeSchema, PHASE_KINDS, rulePackAnswerFields, TOTAL_LOSS_MODES } from '@propdesk/kit';
import { z } from '../http/zod';
import { dealSchema, ORDER_TYPE_NAMES, POSITION_STATUS_NAMES, SIDE_NAMES } from './trading';

/**
 * Analytics and the report arrive as Structs the accounts service builds in REST form
 * (trading/use-cases/get-analytics.ts, get-report.ts) and pass through as they are; these schemas
 * describe them for the document, strictly, so that the end-to-end checks catch any drift.
 */

const count = z.number().int().min(0);
const money = z.number();
const pct = z.number();

const indicatorFields = {
  trades: count,
  wins: count,
  losses: count,
  win_rate: z.number().min(0).max(1).describe('a fraction of trades, 0..1'),
  profit_factor: z.number().nullable().describe('gross profit / |gross loss|; null without losses'),
  expectancy: money.describe('mean profit per trade'),
  average_win: money,
  average_loss: money,
  gross_profit: money,
  gross_loss: money,
  net_profit: money,
  max_drawdown: money,
  max_drawdown_pct: pct,
  sharpe: z.number().nullable().describe('per-trade return mean over its standard deviation, not annualized; null below two trades'),
  total_lots: z.number(),
};
const indicatorsSchema = z.object(indicatorFields).strict().openapi('Indicators');

const headroomSchema = z
  .object({
    daily_loss_remaining: money,
    daily_loss_limit: money.describe("equity below this breaches the daily-loss rule (the day's reference minus the allowance)"),
    daily_loss_basis: z.enum(DAILY_LOSS_BASES),
    total_loss_remaining: money,
    total_loss_limit: money.describe('equity below this breaches the total-loss rule'),
    total_loss_mode: z.enum(TOTAL_LOSS_MODES),
    profit_target_remaining: money.nullable().describe('null in a funded phase (no target)'),
    trading_days: count,
    min_trading_days: count,
  })
  .strict()
  .openapi('Headroom', { description: 'what is left before each limit of the frozen terms' });

// The indicators' fields repeated rather than extended: allOf with additionalProperties false
// in each part would refuse every field of the other.
export const analyticsSchema = z
  .object({ ...indicatorFields, balance: money, equity: money, peak_equity: money, headroom: headroomSchema })
  .strict()
  .openapi('Analytics', { description: 'Indicators (SPEC section 9) of the closed deals, the live balance and equity, and the headroom.' });

const groupSummary = {
  trades: count,
  wins: count,
  losses: count,
  win_rate: z.number().min(0).max(1),
  profit: money,
  gross_profit: money,
  gross_loss: money,
  lots: z.number(),
};
const groupSummarySchema = z.object(groupSummary).strict().openapi('GroupSummary');

const reportPositionSchema = z
  .object({
    id: z.string(),
    status: z.enum(POSITION_STATUS_NAMES),
    symbol: z.string(),
    side: z.enum(SIDE_NAMES),
    type: z.enum(ORDER_TYPE_NAMES),
    volume: z.number(),
    price: z.number().nullable(),
    open_price: z.number().nullable(),
    stop_loss: z.number().nullable(),
    take_profit: z.number().nullable(),
    opened_at: z.string().datetime().nullable(),
    floating_profit: money.nullable().describe('open positions at the current quote; null for pending orders'),
    created_at: z.string().datetime().nullable(),
  })
  .strict()
  .openapi('ReportPosition');

const termsSchema = z
  .object({
    program: z.string(),
    program_version: z.number().int().min(1),
    phase: z.object({ index: count, name: z.string(), kind: z.enum(PHASE_KINDS) }).strict(),
    attempt: z.number().int().min(1),
    kind: z.enum(PHASE_KINDS),
    max_daily_loss_pct: pct,
    daily_loss_basis: z.enum(DAILY_LOSS_BASES),
    max_total_loss_pct: pct,
    total_loss_mode: z.enum(TOTAL_LOSS_MODES),
    trailing_stops_at_initial: z.boolean(),
    profit_target_pct: pct.nullable().describe('null in a funded phase'),
    min_trading_days: count,
    consistency_pct: pct.nullable(),
    warning_at_pct: pct.nullable(),
    profit_split_pct: pct.nullable(),
    payout_requires_approval: z.boolean(),
    requires_kyc: z.boolean(),
    leverage: z.number(),
    max_lots_per_order: z.number(),
    allowed_symbols: z.array(z.string()).nullable().describe('null: every instrument'),
    flag_lots_above: z.number().nullable(),
    flag_weekend_holding: z.boolean(),
    currency: z.string(),
    ...rulePackAnswerFields,
    headroom: headroomSchema,
    breaches: z.array(
      z
        .object({
          rule: z.string(),
          reason: z.string(),
          evidence: z.record(z.string(), z.unknown()),
          created_at: z.string().datetime().nullable(),
          reinstated_at: z.string().datetime().nullable().describe('SPEC 14: when an operator reinstated the account after this breach'),
          reinstated_reason: z.string().nullable(),
        })
        .strict(),
    ),
  })
  .strict();

export const reportSchema = z
  .object({
    identity: z
      .object({
        account: z.number().int(),
        organization_id: z.string().uuid(),
        livemode: livemodeSchema,
        status: z.enum(ACCOUNT_STATUSES),
        trader_id: z.string().nullable(),
        program: z.string(),
        currency: z.string(),
        initial_balance: money,
        balance: money,
        equity: money,
        peak_equity: money,
        created_at: z.string().datetime().nullable(),
        generated_at: z.string().datetime(),
      })
      .strict(),
    balance_equity_history: z.array(
      z
        .object({
          day: z.string().date(),
          balance: money.nullable(),
          equity: money.nullable(),
          equity_low: money.nullable(),
          equity_high: money.nullable(),
        })
        .strict(),
    ),
    monthly_statement: z.array(
      z
        .object({ month: z.string().regex(/^\d{4}-\d{2}$/), ...groupSummary, start_balance: money.nullable(), end_balance: money.nullable() })
        .strict(),
    ),
    indicators: indicatorsSchema,
    streaks: z
      .object({
        max_consecutive_wins: count,
        max_consecutive_losses: count,
        best_run_profit: money,
        worst_run_loss: money,
        current_streak: z.object({ kind: z.enum(['none', 'win', 'loss', 'flat']), length: count }).strict(),
      })
      .strict(),
    long_short: z.object({ long: groupSummarySchema, short: groupSummarySchema }).strict(),
    by_instrument: z.array(z.object({ symbol: z.string(), ...groupSummary }).strict()),
    deals_and_positions: z
      .object({
        deals: z.array(dealSchema).describe('the newest deals first, up to a cap'),
        deals_total: count,
        deals_truncated: z.boolean(),
        note: z.string(),
        open_positions: z.array(reportPositionSchema),
        pending_orders: z.array(reportPositionSchema),
      })
      .strict(),
    terms: termsSchema.describe('the frozen terms of the program, the headroom and every breach'),
  })
  .strict()
  .openapi('Report', { description: 'The report of SPEC section 9, one object per section.' });
