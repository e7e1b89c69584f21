import { executeTogether, type Transaction } from '@propdesk/kit';
import { EVENTS_NOTIFIED, revokeSessionsStatement, scopeOfAccount, type Account } from '../core-port';
import { flagStatement } from '../data/flags';
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
  const balanceBefore = account.balance;
  // The positions' events and account.breached go in one statement, in that order.
  const closes = closeBatch(running);
  const balance = await liquidateInTx(ctx, tx, account, live, 'breach', closes);
  const peakEquity = Math.max(account.peakEquity, observed.peakEquity, observed.equity);
  const evidence = {
    rule: breach.rule,
    limit: breach.limit,
    equity: observed.equity,
    balance: balanceBefore,
    peak_equity: peakEquity,
    start_of_day_balance: observed.startOfDayBalance,
    time: now.toISOString(),
    program: account.program,
    program_version: account.programVersion,
    phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
    attempt: account.attempt,
  };
  closes.events.push({
    ...scopeOfAccount(account),
    type: 'account.breached',
    data: {
      account: account.number,
      trader_id: account.traderId,
      status: 'breached',
      reason: breach.reason,
      equity: observed.equity,
      balance,
      peak_equity: peakEquity,
      rule: breach.rule,
      limit: breach.limit,
    },
  });
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
        dedupeKey: account.attempt === 1 ? `breach:${account.number}` : `breach:${account.number}:${account.attempt}`,
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
