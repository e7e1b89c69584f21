import { executeTogether, type Transaction } from '@propdesk/kit';
import { EVENTS_NOTIFIED, scopeOfAccount, type Account } from '../core-port';
import { flagStatement } from '../data/flags';
import type { Position } from '../data/positions';
import { keepDeadlines, writeLock } from '../data/rule-deadlines';
import { calendarOf } from '../domain/calendar';
import type { DayLock } from '../domain/rules';
import type { RunningStats } from '../domain/running-stats';
import type { Observation } from './apply-breach';
import { closeBatch, closeBatchStatements } from './close-position';
import { liquidateInTx } from './liquidate-account';
import { equityPointStatement, type TradingContext } from './trading-context';

/**
 * SPEC 15's lock (daily_loss_action lock, daily_profit_cap_pct), inside the caller's transaction
 * with the account row locked: the positions close at the current prices (close reason: the
 * rule), resting orders are cancelled, and the account refuses orders (rule daily_lock or
 * daily_profit_cap) until the start of its next trading day; it is not breached and trading
 * resumes then. A flag carries the evidence, and account.locked {account, rule, until} is
 * emitted; the lock's expiry is a deadline of the scheduler (rule_deadlines lock_expiry).
 */
export async function applyLock(
  ctx: TradingContext,
  tx: Transaction,
  account: Account,
  live: Position[],
  observed: Observation,
  lock: DayLock,
  running?: RunningStats,
): Promise<Account> {
  const now = ctx.now();
  const calendar = calendarOf(account.terms, ctx.rolloverHourUtc);
  const until = calendar.nextStart(now);
  const closes = closeBatch(running);
  const balance = await liquidateInTx(ctx, tx, account, live, lock.rule, closes);
  const peakEquity = Math.max(account.peakEquity, observed.peakEquity, observed.equity);
  closes.events.push({ ...scopeOfAccount(account), type: 'account.locked', data: { account: account.number, rule: lock.rule, until: until.toISOString() } });
  await writeLock(ctx.sequelize, tx, { accountNumber: account.number, attempt: account.attempt, rule: lock.rule, until, lockedAt: now });
  await keepDeadlines(ctx.sequelize, tx, [{ accountNumber: account.number, rule: 'lock_expiry', dueAt: until, testClockId: account.testClockId }]);
  await executeTogether(
    ctx.sequelize,
    [
      flagStatement({
        accountNumber: account.number,
        organizationId: account.organizationId,
        rule: lock.rule,
        action: 'flag',
        reason: lock.reason,
        evidence: {
          rule: lock.rule,
          limit: lock.limit,
          equity: observed.equity,
          balance: account.balance,
          peak_equity: peakEquity,
          start_of_day_balance: observed.startOfDayBalance,
          until: until.toISOString(),
          trading_day: calendar.dayOf(now),
          time: now.toISOString(),
          program: account.program,
          program_version: account.programVersion,
          phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
          attempt: account.attempt,
        },
        dedupeKey: `lock:${account.number}:${account.attempt}:${calendar.dayOf(now)}`,
        createdAt: now,
      }),
      ...closeBatchStatements(account.number, closes, { balance, equity: balance, peakEquity }),
      equityPointStatement(account.number, now, balance, balance),
    ],
    tx,
    EVENTS_NOTIFIED,
  );
  return { ...account, balance, equity: balance, peakEquity };
}
