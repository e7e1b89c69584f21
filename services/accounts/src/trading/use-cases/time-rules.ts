import type { Sequelize, Transaction } from '@propdesk/kit';
import type { Account } from '../core-port';
import { livePositionsOfAccounts, type Position } from '../data/positions';
import { clearLock, dropDeadlines, keepDeadlines, lastPositionsOpenedAt, moveDeadline, type Deadline, type NewDeadline } from '../data/rule-deadlines';
import { inactiveAt, timeLimitAt } from '../domain/rule-pack';
import type { Breach, BreachRule } from '../domain/rules';
import { applyBreach, applyIdleBreaches } from './apply-breach';
import { liquidateInTx } from './liquidate-account';
import { equityFromPositions, type TradingContext } from './trading-context';

/**
 * SPEC 15's time rules, acting at their moments (rule_deadlines): a phase out of time
 * (time_limit) or an inactive account (inactivity) is breached, a session's end closes the
 * positions and cancels the resting orders (close reason session_end), a lock expires. The live
 * market's scheduler and a test clock's advance both apply a batch of due deadlines with
 * applyDeadlines, at the moment they reach.
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

/** What a batch's deadlines weigh, read for all of them at once: the accounts' live positions and their last opening. */
interface BatchFacts {
  live: Map<number, Position[]>;
  lastOpened: Map<number, Date>;
  /** Accounts holding nothing that breach: written together at the end of the batch (applyIdleBreaches). */
  idle: Array<{ account: Account; breach: Breach }>;
}

/**
 * Due deadlines at `ctx.now()`, inside the caller's transaction, their accounts locked by the
 * caller (`accounts`: the active ones; a deadline of any other no longer applies). In account
 * order, each sees what the previous one of its account changed. A breach deadline is checked
 * against the account as it stands: a position opened since (inactivity) or a reset (time limit)
 * moved the moment, and the row is moved there instead; so opening a position costs the order
 * nothing, the account pays at its moment. The batch costs a few statements plus one per account
 * that acts (a breach's writes are one statement).
 */
export async function applyDeadlines(ctx: TradingContext, tx: Transaction, accounts: Map<number, Account>, deadlines: readonly Deadline[]): Promise<DeadlineOutcome[]> {
  const { sequelize } = ctx;
  const numbers = [...new Set(deadlines.map((d) => d.accountNumber))].filter((n) => accounts.get(n)?.status === 'active');
  const live = new Map<number, Position[]>();
  for (const p of await livePositionsOfAccounts(sequelize, numbers, tx)) live.set(p.accountNumber, [...(live.get(p.accountNumber) ?? []), p]);
  const inactivity = deadlines.filter((d) => d.rule === 'inactivity').map((d) => d.accountNumber);
  const facts: BatchFacts = { live, lastOpened: await lastPositionsOpenedAt(sequelize, tx, inactivity), idle: [] };
  const outcomes: DeadlineOutcome[] = [];
  const done: Deadline[] = [];
  for (const d of [...deadlines].sort((a, b) => a.accountNumber - b.accountNumber || a.dueAt.getTime() - b.dueAt.getTime())) {
    const account = accounts.get(d.accountNumber);
    const outcome = account?.status === 'active' ? await applyOne(ctx, tx, account, d, facts, accounts) : 'dropped';
    if (outcome !== 'moved') done.push(d);
    outcomes.push(outcome);
  }
  await applyIdleBreaches(ctx, tx, facts.idle);
  await dropDeadlines(sequelize, tx, done);
  return outcomes;
}

async function applyOne(ctx: TradingContext, tx: Transaction, account: Account, deadline: Deadline, facts: BatchFacts, accounts: Map<number, Account>): Promise<DeadlineOutcome> {
  const live = facts.live.get(account.number) ?? [];
  switch (deadline.rule) {
    case 'time_limit': {
      const due = timeLimitAt(account.terms, account.attemptStartedAt);
      const reason = `time_limit (${account.terms.maxPhaseDays} days): the phase started ${account.attemptStartedAt.toISOString()} was not passed by ${due?.toISOString()}`;
      return breachAt(ctx, tx, { account, live, deadline, due, rule: 'time_limit', reason }, accounts, facts);
    }
    case 'inactivity': {
      const opened = facts.lastOpened.get(account.number);
      const since = opened && opened.getTime() > account.attemptStartedAt.getTime() ? opened : account.attemptStartedAt;
      const due = inactiveAt(account.terms, since);
      const reason = `inactivity (${account.terms.inactivityDays} days): no position opened since ${since.toISOString()}`;
      return breachAt(ctx, tx, { account, live, deadline, due, rule: 'inactivity', reason }, accounts, facts);
    }
    case 'session_end': {
      if (live.length === 0) return 'dropped';
      const balance = await liquidateInTx(ctx, tx, account, live, 'session_end');
      facts.live.set(account.number, []);
      accounts.set(account.number, { ...account, balance, equity: balance });
      return 'acted';
    }
    case 'lock_expiry':
      await clearLock(ctx.sequelize, tx, account.number, ctx.now());
      return 'acted';
  }
}

async function breachAt(
  ctx: TradingContext,
  tx: Transaction,
  at: { account: Account; live: Position[]; deadline: Deadline; due: Date | null; rule: BreachRule; reason: string },
  accounts: Map<number, Account>,
  facts: BatchFacts,
): Promise<DeadlineOutcome> {
  const { account, live, due } = at;
  if (due === null) return 'dropped';
  if (due.getTime() > ctx.now().getTime()) {
    await moveDeadline(ctx.sequelize, tx, at.deadline, due);
    return 'moved';
  }
  const breach: Breach = { rule: at.rule, limit: null, reason: at.reason };
  if (live.length === 0) {
    // Nothing to close: breached with the batch's others in one statement.
    facts.idle.push({ account, breach });
    accounts.set(account.number, { ...account, status: 'breached', equity: account.balance });
    return 'acted';
  }
  const equity = equityFromPositions(ctx, account.balance, live);
  const observed = { equity, peakEquity: Math.max(account.peakEquity, equity), startOfDayBalance: null };
  accounts.set(account.number, await applyBreach(ctx, tx, account, live, observed, breach));
  return 'acted';
}
