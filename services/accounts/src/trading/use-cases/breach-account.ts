import { AppError, type Transaction } from '@propdesk/kit';
import { revokeSessionsForAccount } from '../../data/executor-sessions';
import { appendEvent } from '../../data/outbox';
import { readAccount, startOfDayBalances, writeAccountMoney, type TradingAccount } from '../data/account-state';
import { insertFlag } from '../data/flags';
import { cancelPending, livePositionsOfAccount, type Position } from '../data/positions';
import { exitPrice } from '../domain/pnl';
import { tradingDayOf, tradingDayStart, type Breach } from '../domain/rules';
import { accountNotFound, requireActive } from './account-guards';
import { closePositionInTx, equityFromPositions, recordEquityPoint, type TradingContext } from './context';

export interface Observation {
  equity: number;
  peakEquity: number;
  startOfDayBalance: number | null;
}

/**
 * Closes every open position at the current price (buy at bid, sell at ask; a symbol without a
 * quote closes flat at its open price), cancels resting orders, and returns the final balance.
 */
export async function liquidateInTx(ctx: TradingContext, tx: Transaction, account: TradingAccount, live: Position[], reason: string): Promise<number> {
  const now = ctx.now();
  let balance = account.balance;
  for (const position of live) {
    if (position.status !== 'open' || position.openPrice === null) continue;
    const quote = ctx.quote(position.symbol);
    const price = quote ? exitPrice(position.side, quote) : position.openPrice;
    const result = await closePositionInTx(ctx, tx, { number: account.number, organizationId: account.organizationId, initialBalance: account.initialBalance, balance }, position, price, reason, now);
    if (result) balance = result.balance;
  }
  await cancelPending(ctx.sequelize, tx, account.number, reason);
  return balance;
}

/**
 * The breach itself, inside the caller's transaction with the account row locked: liquidate,
 * status breached, executor sessions revoked, a breach flag carrying the evidence, and
 * account.breached with the seed's fields (plus rule and limit).
 */
export async function breachInTx(ctx: TradingContext, tx: Transaction, account: TradingAccount, live: Position[], observed: Observation, breach: Breach): Promise<TradingAccount> {
  const now = ctx.now();
  const balanceBefore = account.balance;
  const balance = await liquidateInTx(ctx, tx, account, live, 'breach');
  const peakEquity = Math.max(account.peakEquity, observed.peakEquity, observed.equity);
  await writeAccountMoney(ctx.sequelize, tx, account.number, { balance, equity: balance, peakEquity, status: 'breached' });
  await revokeSessionsForAccount(ctx.sequelize, tx, account.number);
  const evidence = {
    rule: breach.rule,
    limit: breach.limit,
    equity: observed.equity,
    balance: balanceBefore,
    peak_equity: peakEquity,
    start_of_day_balance: observed.startOfDayBalance,
    time: now.toISOString(),
  };
  await insertFlag(ctx.sequelize, tx, {
    accountNumber: account.number,
    organizationId: account.organizationId,
    rule: breach.rule,
    action: 'breach',
    reason: breach.reason,
    evidence,
    dedupeKey: `breach:${account.number}`,
    createdAt: now,
  });
  await appendEvent(ctx.sequelize, tx, {
    organizationId: account.organizationId,
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
  await recordEquityPoint(ctx, tx, account.number, now, balance, balance);
  return { ...account, status: 'breached', balance, equity: balance, peakEquity };
}

/** POST .../breach {reason}: the same breach with rule manual. */
export async function breachAccountManually(ctx: TradingContext, organizationId: string, accountNumber: number, reason: string, startOfDayBalance: number | null): Promise<TradingAccount> {
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  if (trimmed.length < 1 || trimmed.length > 500) throw new AppError('invalid_request', 'reason must be 1 to 500 characters', 'reason');
  const now = ctx.now();
  // Read before the transaction: it may insert today's row, and the locked transaction uses one connection only.
  const sod =
    startOfDayBalance ??
    (await startOfDayBalances(ctx.sequelize, [accountNumber], tradingDayOf(now, ctx.rolloverHourUtc), tradingDayStart(now, ctx.rolloverHourUtc))).get(accountNumber) ??
    null;
  return ctx.sequelize.transaction(async (tx) => {
    const account = await readAccount(ctx.sequelize, accountNumber, { org: organizationId, tx, lock: true });
    if (!account) throw accountNotFound();
    requireActive(account);
    const live = await livePositionsOfAccount(ctx.sequelize, accountNumber, tx);
    const equity = equityFromPositions(ctx, account.balance, live);
    return breachInTx(ctx, tx, account, live, { equity, peakEquity: Math.max(account.peakEquity, equity), startOfDayBalance: sod }, { rule: 'manual', limit: null, reason: trimmed });
  });
}
