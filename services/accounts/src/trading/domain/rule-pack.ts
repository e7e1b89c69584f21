import { minutesOfDay, type LockRule, type PreOrderRule, type TradingHours } from '@propdesk/kit';
import type { Terms } from '../core-port';
import { calendarAt, wallMinuteOf } from './calendar';
import { findInstrument, roundMoney, type QuoteLookup } from './instruments';
import { haltedViolation, marginViolation, sizeViolation, type OrderInput, type PreOrderViolation } from './orders';
import { rawProfit } from './pnl';
import { judge, type Limits } from './rules';

/**
 * SPEC 15's rule pack, the only place its formulas live: the pre-order rules (what refuses an
 * order, each named), the time rules' moments (when a phase runs out of time, an account of
 * activity, a session ends, a lock expires) and the order preview's worst case. Pure: the caller
 * reads what the rules weigh (counts, news, the lock in force) and the time.
 */

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** What the pre-order rules weigh about the account and the market, read by the caller under the account lock. */
export interface OrderFacts {
  now: Date;
  /** Open and pending positions now. */
  livePositions: number;
  /** Positions opened in the current trading day, plus orders pending now (each opens one when it fills). */
  tradesToday: number;
  /** The lock in force (SPEC 15 daily_lock, daily_profit_cap), if any. */
  lock: { rule: LockRule; until: Date } | null;
  /** News events near now of the currencies of the order's symbol (the caller may read a wider window). */
  news: ReadonlyArray<{ title: string; time: Date }>;
  /** What the order loses if it fills and is stopped out (null: no stop loss). */
  lossAtStop: number | null;
  margin: { required: number; equity: number; used: number };
}

export interface RuleAccount {
  number: number;
  tradingHalted: boolean;
  initialBalance: number;
  terms: Terms;
}

const violation = (rule: PreOrderRule, reason: string): PreOrderViolation => ({ rule, reason: `${rule}${reason}` });

/**
 * Every pre-order rule's verdict on an order, in the order they are weighed (the first refuses a
 * placed order; the preview lists them all). Empty: the order may be placed.
 */
export function preOrderViolations(order: Pick<OrderInput, 'symbol' | 'volume' | 'stopLoss'>, account: RuleAccount, facts: OrderFacts): PreOrderViolation[] {
  const { terms } = account;
  const found: PreOrderViolation[] = [];
  const halted = haltedViolation(account);
  if (halted) found.push(halted);
  if (facts.lock && facts.now.getTime() < facts.lock.until.getTime()) {
    found.push(violation(facts.lock.rule, `: account ${account.number} is locked until ${facts.lock.until.toISOString()} (the next trading day)`));
  }
  if (terms.tradingHours && !withinTradingHours(terms.tradingHours, facts.now)) {
    const h = terms.tradingHours;
    found.push(violation('trading_hours', ` (${h.start}-${h.end} ${h.timezone}): orders are taken from ${h.start} until ${h.end} only`));
  }
  if (terms.newsBlackoutMinutes !== null) {
    const event = blackoutEvent(facts.news, facts.now, terms.newsBlackoutMinutes);
    if (event) {
      found.push(violation('news_blackout', ` (${terms.newsBlackoutMinutes} minutes): ${order.symbol} is blacked out around "${event.title}" at ${event.time.toISOString()}`));
    }
  }
  const size = sizeViolation(order, terms);
  if (size) found.push(size);
  if (terms.stopLossRequired && order.stopLoss === undefined) found.push(violation('stop_loss_required', ': the order has no stop_loss'));
  if (terms.maxRiskPerTradePct !== null) {
    const allowed = riskAllowance(terms.maxRiskPerTradePct, account.initialBalance);
    if (facts.lossAtStop === null) found.push(violation('max_risk_per_trade', ` (${terms.maxRiskPerTradePct}%): the order has no stop_loss, so its risk is unbounded`));
    else if (facts.lossAtStop > allowed) {
      found.push(violation('max_risk_per_trade', ` (${terms.maxRiskPerTradePct}%): the order loses ${facts.lossAtStop.toFixed(2)} at its stop loss, more than ${allowed.toFixed(2)}`));
    }
  }
  if (terms.maxOpenPositions !== null && facts.livePositions + 1 > terms.maxOpenPositions) {
    found.push(violation('max_open_positions', ` (${terms.maxOpenPositions}): the order would make ${facts.livePositions + 1} open and pending positions`));
  }
  if (terms.maxTradesPerDay !== null && facts.tradesToday + 1 > terms.maxTradesPerDay) {
    found.push(violation('max_trades_per_day', ` (${terms.maxTradesPerDay}): ${facts.tradesToday} positions opened or pending this trading day already`));
  }
  const margin = marginViolation(terms, facts.margin);
  if (margin) found.push(margin);
  return found;
}

/** The most money an order may lose at its stop loss under max_risk_per_trade_pct. */
export function riskAllowance(pct: number, initialBalance: number): number {
  return roundMoney((pct / 100) * initialBalance);
}

/**
 * What an order loses (>= 0) if it fills at `entry` and is stopped out at its stop loss (null
 * without one), in the account currency at the current conversion rates, rounded as a deal is.
 */
export function lossAtStop(order: Pick<OrderInput, 'symbol' | 'side' | 'volume' | 'stopLoss'>, entry: number, quotes: QuoteLookup): number | null {
  if (order.stopLoss === undefined) return null;
  const profit = roundMoney(rawProfit({ symbol: order.symbol, side: order.side, volume: order.volume, openPrice: entry }, order.stopLoss, quotes));
  return Math.max(0, -profit);
}

/** trading_hours: the zone's wall time now is in [start, end) (whole minutes). */
export function withinTradingHours(hours: TradingHours, now: Date): boolean {
  const minute = wallMinuteOf(now, hours.timezone);
  return minute >= minutesOfDay(hours.start) && minute < minutesOfDay(hours.end);
}

/** news_blackout: the first event whose window [time - minutes, time + minutes] holds now (both ends included). */
export function blackoutEvent<E extends { time: Date }>(events: readonly E[], now: Date, minutes: number): E | undefined {
  const t = now.getTime();
  const half = minutes * MINUTE_MS;
  return events.find((e) => t >= e.time.getTime() - half && t <= e.time.getTime() + half);
}

/** The currencies a news event may name for a symbol: its two currencies, metals and indices excepted (XAUUSD: USD). */
export function newsCurrencies(symbol: string): string[] {
  const instrument = findInstrument(symbol);
  return instrument ? [...instrument.newsCurrencies] : [];
}

/** max_phase_days: the moment a phase (attempt) started at `startedAt` runs out of time; null without the rule. */
export function timeLimitAt(terms: Pick<Terms, 'maxPhaseDays'>, startedAt: Date): Date | null {
  return terms.maxPhaseDays === null ? null : new Date(startedAt.getTime() + terms.maxPhaseDays * DAY_MS);
}

/** inactivity_days: the moment an account is inactive, counted from its last position opened (or its phase's start). */
export function inactiveAt(terms: Pick<Terms, 'inactivityDays'>, lastActivity: Date): Date | null {
  return terms.inactivityDays === null ? null : new Date(lastActivity.getTime() + terms.inactivityDays * DAY_MS);
}

/** close_at_session_end: the first session end strictly after `now` (trading_hours' end, wall time); null without the rule. */
export function sessionEndAfter(terms: Pick<Terms, 'closeAtSessionEnd' | 'tradingHours'>, now: Date): Date | null {
  if (!terms.closeAtSessionEnd || !terms.tradingHours) return null;
  return calendarAt(terms.tradingHours.timezone, minutesOfDay(terms.tradingHours.end)).nextStart(now);
}

/** The order preview's worst case (SPEC 15): the account's headroom if the order filled and was stopped out at its stop. */
export interface WorstCase {
  loss_at_stop: number;
  daily_headroom_after: number;
  total_headroom_after: number;
  would_breach: boolean;
}

/**
 * With the account's equity now and its limits: the equity after losing `loss` (the other
 * positions at today's prices), the distance left to each loss limit (negative: past it), and
 * whether the rules would breach the account there (a daily lock is not a breach).
 */
export function worstCase(terms: Terms, limits: Limits, equity: number, loss: number, tradingDays: number): WorstCase {
  const after = roundMoney(equity - loss);
  return {
    loss_at_stop: loss,
    daily_headroom_after: Number.isFinite(limits.dailyLoss) ? roundMoney(after - limits.dailyLoss) : after,
    total_headroom_after: roundMoney(after - limits.totalLoss),
    would_breach: judge(terms, limits, after, tradingDays).kind === 'breached',
  };
}
