import { executeTogether, type Transaction } from '@propdesk/kit';
import { EVENTS_NOTIFIED, scopeOfAccount, type Account } from '../core-port';
import type { Position } from '../data/positions';
import type { RunningStats } from '../domain/running-stats';
import { closeBatch, closeBatchStatements } from './close-position';
import { liquidateInTx } from './liquidate-account';
import { equityPointStatement, type TradingContext } from './trading-context';

/**
 * The objectives are met: inside the caller's transaction (row locked) the open positions close
 * at the current price so the result is booked, the status becomes passed, and account.passed
 * carries the final figures. When the program has a phase after this evaluation phase, its
 * account is provisioned in this same transaction (the core's lifecycle; a unique constraint on
 * previous_account keeps it to one whatever the replicas): account.passed names it, then come
 * its account.created and account.assigned; the passed row links it (next_account) in the write
 * that sets its status. A failure anywhere rolls the pass back with it. After the liquidation and
 * the next phase, the writes are one statement (executeTogether).
 */
export async function applyPass(
  ctx: TradingContext,
  tx: Transaction,
  account: Account,
  live: Position[],
  observed: { equity: number; peakEquity: number; tradingDays: number },
  running?: RunningStats,
): Promise<Account> {
  const closes = closeBatch(running);
  const balance = await liquidateInTx(ctx, tx, account, live, 'profit_target', closes);
  const peakEquity = Math.max(observed.peakEquity, balance);
  const progression = ctx.lifecycle ? await ctx.lifecycle.provisionNextPhase(tx, account) : null;
  // The pass's events in their order, after the positions closed: account.passed, then the next account's.
  closes.events.push(
    {
      ...scopeOfAccount(account),
      type: 'account.passed',
      data: {
        account: account.number,
        trader_id: account.traderId,
        status: 'passed',
        equity: observed.equity,
        balance,
        peak_equity: peakEquity,
        trading_days: observed.tradingDays,
        program: account.program,
        program_version: account.programVersion,
        phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
        next_account: progression?.next.number ?? null,
      },
    },
    ...(progression?.events ?? []),
  );
  const money = { balance, equity: balance, peakEquity, status: 'passed' as const, nextAccount: progression?.next.number };
  await executeTogether(ctx.sequelize, [...closeBatchStatements(account.number, closes, money), equityPointStatement(account.number, ctx.now(), balance, balance)], tx, EVENTS_NOTIFIED);
  return { ...account, status: 'passed', balance, equity: balance, peakEquity, nextAccount: progression?.next.number ?? null };
}
