import type { Sequelize, Transaction } from '@propdesk/kit';
import type { Account } from '../core-port';
import { livePositionsAndRunningStats } from '../data/closing';
import { livePositionsOfAccount } from '../data/positions';
import { clearLock, dropDeadline, keepDeadlines, lastPositionOpenedAt, moveDeadline, type Deadline, type NewDeadline } from '../data/rule-deadlines';
import { inactiveAt, timeLimitAt } from '../domain/rule-pack';
import type { BreachRule } from '../domain/rules';
import { applyBreach } from './apply-breach';
import { liquidateInTx } from './liquidate-account';
import { equityFromPositions, type TradingContext } from './trading-context';

/**
 * SPEC 15's time rules, acting at their moments (rule_deadlines): a phase out of time
 * (time_limit) or an inactive account (inactivity) is breached, a session's end closes the
 * positions and cancels the resting orders (close reason session_end), a lock expires. The live
 * market's scheduler and a test clock's advance both run applyDeadline, at the moment they reach.
 */

/** The deadlines a phase (attempt) starting at `account.attemptStartedAt` has: its time limit and its inactivity. */
export function phaseDeadlines(account: Pick<Account, 'number' | 'terms' | 'attemptStartedAt' | 'testClockId'>): NewDeadline[] {
  const found: NewDeadline[] = [];
  const limit = timeLimitAt(account.terms, account.attemptStartedAt);
  if (limit) found.push({ accountNumber: account.number, rule: 'time_limit', dueAt: limit, testClockId: account.testClockId });
  const inactive = inactiveAt(account.terms, account.attemptStartedAt);
  if (inactive) found.push({ accountNumber: account.number, rule: 'inactivity', dueAt: inactive, testClockId: account.testClockId });
  return found;
}

/**
 * A phase (or a reset's new attempt) began for these accounts: their time rules are scheduled from
 * it, inside the transaction that started it. Accounts whose terms have none cost nothing.
 */
export async function schedulePhaseDeadlines(sequelize: Sequelize, tx: Transaction, accounts: readonly Account[]): Promise<void> {
  await keepDeadlines(sequelize, tx, accounts.flatMap(phaseDeadlines));
}

export type DeadlineOutcome = 'acted' | 'moved' | 'dropped';

/**
 * One deadline at `ctx.now()`, inside the caller's transaction with the account row locked
 * (`account`: null or not active, the deadline no longer applies). A breach deadline is checked
 * against the account as it stands: a position opened since (inactivity) or a reset (time limit)
 * moved the moment, and the row is moved there instead; so opening a position costs the order
 * nothing, the account pays at its moment.
 */
export async function applyDeadline(ctx: TradingContext, tx: Transaction, account: Account | null, deadline: Deadline): Promise<DeadlineOutcome> {
  const { sequelize } = ctx;
  if (!account || account.status !== 'active') {
    await dropDeadline(sequelize, tx, deadline);
    return 'dropped';
  }
  switch (deadline.rule) {
    case 'time_limit': {
      const due = timeLimitAt(account.terms, account.attemptStartedAt);
      const reason = `time_limit (${account.terms.maxPhaseDays} days): the phase started ${account.attemptStartedAt.toISOString()} was not passed by ${due?.toISOString()}`;
      return breachAt(ctx, tx, account, deadline, due, 'time_limit', reason);
    }
    case 'inactivity': {
      const opened = await lastPositionOpenedAt(sequelize, tx, account.number, account.attempt);
      const since = opened && opened.getTime() > account.attemptStartedAt.getTime() ? opened : account.attemptStartedAt;
      const due = inactiveAt(account.terms, since);
      const reason = `inactivity (${account.terms.inactivityDays} days): no position opened since ${since.toISOString()}`;
      return breachAt(ctx, tx, account, deadline, due, 'inactivity', reason);
    }
    case 'session_end': {
      const live = await livePositionsOfAccount(sequelize, account.number, tx);
      if (live.length > 0) await liquidateInTx(ctx, tx, account, live, 'session_end');
      await dropDeadline(sequelize, tx, deadline);
      return live.length > 0 ? 'acted' : 'dropped';
    }
    case 'lock_expiry':
      await clearLock(sequelize, tx, account.number, ctx.now());
      await dropDeadline(sequelize, tx, deadline);
      return 'acted';
  }
}

async function breachAt(
  ctx: TradingContext,
  tx: Transaction,
  account: Account,
  deadline: Deadline,
  due: Date | null,
  rule: BreachRule,
  reason: string,
): Promise<DeadlineOutcome> {
  if (due === null) {
    await dropDeadline(ctx.sequelize, tx, deadline);
    return 'dropped';
  }
  if (due.getTime() > ctx.now().getTime()) {
    await moveDeadline(ctx.sequelize, tx, deadline, due);
    return 'moved';
  }
  const { live, running } = await livePositionsAndRunningStats(ctx.sequelize, account.number, account.initialBalance, tx);
  const equity = equityFromPositions(ctx, account.balance, live);
  const observed = { equity, peakEquity: Math.max(account.peakEquity, equity), startOfDayBalance: null };
  await applyBreach(ctx, tx, account, live, observed, { rule, limit: null, reason }, running);
  await dropDeadline(ctx.sequelize, tx, deadline);
  return 'acted';
}
