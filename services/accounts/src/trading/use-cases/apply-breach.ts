import { executeTogether, type EventData, type Transaction } from '@propdesk/kit';
import { accountsStatusWithEvents, EVENTS_NOTIFIED, revokeSessionsOfAccountsStatement, revokeSessionsStatement, scopeOfAccount, type Account } from '../core-port';
import { equityMinutesStatement } from '../data/equity-minutes';
import { flagsStatement, flagStatement } from '../data/flags';
import type { Position } from '../data/positions';
import type { Breach } from '../domain/rules';
import type { RunningStats } from '../domain/running-stats';
import { closeBatch, closeBatchStatements } from './close-position';
import { liquidateInTx } from './liquidate-account';
import { equityPointStatement, type TradingContext } from './trading-context';

/** What was observed when the breach was decided (it goes into the evidence and the event). */
export interface Observation {
  equity: number;
  peakEquity: number;
  startOfDayBalance: number | null;
}

/**
 * The breach itself, whether a rule found it (evaluate-account.ts) or staff asked for it
 * (breach-account.ts), inside the caller's transaction with the account row locked: liquidate,
 * status breached, executor sessions revoked, a breach flag carrying the evidence, and
 * account.breached with the seed's fields (plus rule and limit). After the liquidation, the
 * writes are one statement (executeTogether): a breach is latency-critical.
 */
export async function applyBreach(
  ctx: TradingContext,
  tx: Transaction,
  account: Account,
  live: Position[],
  observed: Observation,
  breach: Breach,
  running?: RunningStats,
): Promise<Account> {
  const now = ctx.now();
  // The positions' events and account.breached go in one statement, in that order.
  const closes = closeBatch(running);
  const balance = await liquidateInTx(ctx, tx, account, live, 'breach', closes);
  const peakEquity = Math.max(account.peakEquity, observed.peakEquity, observed.equity);
  const evidence = breachEvidence(account, observed, peakEquity, breach, now);
  closes.events.push({ ...scopeOfAccount(account), type: 'account.breached', data: breachedData(account, observed, balance, peakEquity, breach) });
  await executeTogether(
    ctx.sequelize,
    [
      revokeSessionsStatement(account.number),
      flagStatement({
        accountNumber: account.number,
        organizationId: account.organizationId,
        rule: breach.rule,
        action: 'breach',
        reason: breach.reason,
        evidence,
        // One breach per attempt (attempt 1 keeps the key of before attempts existed).
        dedupeKey: breachKey(account),
        createdAt: now,
      }),
      ...closeBatchStatements(account.number, closes, { balance, equity: balance, peakEquity, status: 'breached' }),
      equityPointStatement(account.number, now, balance, balance),
    ],
    tx,
    EVENTS_NOTIFIED,
  );
  return { ...account, status: 'breached', balance, equity: balance, peakEquity };
}

/** The breach's evidence (flags and the report): the rule, the figures observed, the program, version, phase and attempt. */
function breachEvidence(account: Account, observed: Observation, peakEquity: number, breach: Breach, now: Date): Record<string, unknown> {
  return {
    rule: breach.rule,
    limit: breach.limit,
    equity: observed.equity,
    balance: account.balance,
    peak_equity: peakEquity,
    start_of_day_balance: observed.startOfDayBalance,
    time: now.toISOString(),
    program: account.program,
    program_version: account.programVersion,
    phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
    attempt: account.attempt,
  };
}

/** account.breached's data: the seed's fields, plus rule and limit. */
function breachedData(account: Account, observed: Observation, balance: number, peakEquity: number, breach: Breach): EventData<'account.breached'> {
  return {
    account: account.number,
    trader_id: account.traderId,
    status: 'breached' as const,
    reason: breach.reason,
    equity: observed.equity,
    balance,
    peak_equity: peakEquity,
    rule: breach.rule,
    limit: breach.limit,
  };
}

/** One breach per attempt (attempt 1 keeps the key of before attempts existed). */
function breachKey(account: Account): string {
  return account.attempt === 1 ? `breach:${account.number}` : `breach:${account.number}:${account.attempt}`;
}

/**
 * The same breach for many accounts that hold nothing (no open position, no resting order: an
 * inactive account, a phase out of time), set-based, inside the caller's transaction with their
 * rows locked: one statement for all of them (their status, flags, sessions revoked, equity points,
 * one account.breached each, numbered in its sequence). The time rules' scheduler breaches a day's
 * expiries this way; an account holding positions takes applyBreach, which closes them.
 */
export async function applyIdleBreaches(ctx: TradingContext, tx: Transaction, breaches: ReadonlyArray<{ account: Account; breach: Breach }>): Promise<void> {
  if (breaches.length === 0) return;
  const now = ctx.now();
  const datas = new Map<number, Record<string, unknown>>();
  const flags = breaches.map(({ account, breach }) => {
    const observed = { equity: account.balance, peakEquity: account.peakEquity, startOfDayBalance: null };
    datas.set(account.number, breachedData(account, observed, account.balance, account.peakEquity, breach));
    return {
      accountNumber: account.number,
      organizationId: account.organizationId,
      rule: breach.rule,
      action: 'breach' as const,
      reason: breach.reason,
      evidence: breachEvidence(account, observed, account.peakEquity, breach, now),
      dedupeKey: breachKey(account),
      createdAt: now,
    };
  });
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  await executeTogether(
    ctx.sequelize,
    [
      ...accountsStatusWithEvents('breached', 'account.breached', datas),
      flagsStatement(flags),
      revokeSessionsOfAccountsStatement(breaches.map((b) => b.account.number)),
      equityMinutesStatement(
        breaches.map(({ account: a }) => ({ accountNumber: a.number, minute, open: a.balance, high: a.balance, low: a.balance, close: a.balance, balance: a.balance })),
      ),
    ],
    tx,
    EVENTS_NOTIFIED,
  );
}
