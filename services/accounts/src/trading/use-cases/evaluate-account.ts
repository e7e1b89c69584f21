import type { Transaction } from '@propdesk/kit';
import { lockAccount, type Account } from '../core-port';
import { livePositionsAndRunningStats } from '../data/closing';
import { countTradingDays, type Position } from '../data/positions';
import { dailyProfits, withToday } from '../data/daily-profits';
import { calendarOf } from '../domain/calendar';
import { consistencyHolds, evaluate, type AccountSnapshot } from '../domain/rules';
import type { RunningStats } from '../domain/running-stats';
import { accountLock } from '../data/rule-deadlines';
import { applyBreach } from './apply-breach';
import { applyLock } from './apply-lock';
import { applyPass } from './apply-pass';
import { equityFromPositions, type TradingContext } from './trading-context';

export type EvaluationOutcome = { kind: 'breached' | 'passed' | 'locked' | 'unchanged' | 'inactive'; account: Account | null };

/**
 * The automatic verdict on an account, under its row lock. The engine calls this only when its
 * in-memory marks cross a limit or reach the target; here the figures are recomputed from the
 * committed positions and balance and judged again (domain/rules.ts), so a stale replica, or two
 * replicas seeing the same quote, can never breach twice or breach on a position another replica
 * already closed.
 */
export async function evaluateAccount(ctx: TradingContext, accountNumber: number, hints: VerdictHints): Promise<EvaluationOutcome> {
  return ctx.sequelize.transaction(async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, accountNumber);
    if (!account || account.status !== 'active') return { kind: 'inactive', account };
    // The running figures come with the positions: a verdict's closes then cost no round trip of their own.
    const { live, running } = await livePositionsAndRunningStats(ctx.sequelize, accountNumber, account.initialBalance, tx);
    return decideLocked(ctx, tx, account, live, hints, running);
  });
}

/** What the caller knows of the account's day and peak (the engine's view, or a test clock's step). */
export interface VerdictHints {
  peakEquity: number;
  startOfDayBalance: number;
  startOfDayEquity?: number;
  highestEodBalance?: number;
}

/**
 * evaluateAccount's verdict inside the caller's transaction, the active account locked and its
 * live positions read under that lock: judged on the committed figures, then breached or passed
 * (a test clock's advance takes it at a trading day's start, in the step's transaction).
 */
export async function decideLocked(
  ctx: TradingContext,
  tx: Transaction,
  account: Account,
  live: Position[],
  hints: VerdictHints,
  running?: RunningStats,
): Promise<EvaluationOutcome> {
  const accountNumber = account.number;
  const equity = equityFromPositions(ctx, account.balance, live);
  const peakEquity = Math.max(account.peakEquity, hints.peakEquity, equity);
  const snapshot: AccountSnapshot = {
    initialBalance: account.initialBalance,
    balance: account.balance,
    equity,
    peakEquity,
    startOfDayBalance: hints.startOfDayBalance,
    startOfDayEquity: hints.startOfDayEquity,
    highestEodBalance: hints.highestEodBalance,
    tradingDays: 0,
  };
  // The trading days weigh only toward a pass: a breach is judged without reading them.
  let verdict = evaluate(account.terms, snapshot);
  if (verdict.kind !== 'breached') {
    snapshot.tradingDays = await countTradingDays(ctx.sequelize, accountNumber, tx);
    verdict = evaluate(account.terms, snapshot);
  }
  if (verdict.kind === 'passed' && account.terms.consistencyPct !== null) {
    // Consistency: the best day's profit, today's floating included, against the attempt's total.
    const calendar = calendarOf(account.terms, ctx.rolloverHourUtc);
    const today = calendar.dayOf(ctx.now());
    const days = await dailyProfits(ctx.sequelize, account, calendar, ctx.now(), tx);
    verdict = evaluate(account.terms, snapshot, consistencyHolds(account.terms, withToday(days, today, equity - account.balance)));
  }
  switch (verdict.kind) {
    case 'breached': {
      const observed = { equity, peakEquity, startOfDayBalance: hints.startOfDayBalance };
      return { kind: 'breached', account: await applyBreach(ctx, tx, account, live, observed, verdict.breach, running) };
    }
    case 'passed':
      return { kind: 'passed', account: await applyPass(ctx, tx, account, live, { equity, peakEquity, tradingDays: snapshot.tradingDays }, running) };
    case 'locked': {
      // Locked already for this day (its positions closed then): nothing more to do until the lock ends.
      const held = await accountLock(ctx.sequelize, accountNumber, account.attempt, tx);
      if (held && held.until.getTime() > ctx.now().getTime()) return { kind: 'unchanged', account: { ...account, equity, peakEquity } };
      const observed = { equity, peakEquity, startOfDayBalance: hints.startOfDayBalance };
      return { kind: 'locked', account: await applyLock(ctx, tx, account, live, observed, verdict.lock, running) };
    }
    case 'none':
      return { kind: 'unchanged', account: { ...account, equity, peakEquity } };
  }
}
