import type { Transaction } from '@propdesk/kit';
import { appendEvent, lockAccount, scopeOfAccount, type Account } from '../core-port';
import { insertWarning } from '../data/warnings';
import { warningPeriod, type Warning } from '../domain/rules';
import type { TradingContext } from './trading-context';

/** The engine's memory of a warning sent: rule, period and attempt. */
export function warningKey(rule: Warning['rule'], day: string, attempt: number): string {
  return `${rule}:${warningPeriod(rule, day)}:${attempt}`;
}

/**
 * account.warning {account, trader_id, rule, used_pct, limit, equity}, at most once per rule and
 * period (the database row decides, whichever replica marks first), under the account row lock so
 * a warning never follows the breach or reset it races with.
 */
export async function recordWarnings(ctx: TradingContext, seen: Account, warnings: Warning[], equity: number, day: string): Promise<void> {
  await ctx.sequelize.transaction(async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, seen.number);
    if (!account || account.status !== 'active' || account.attempt !== seen.attempt) return;
    await recordWarningsLocked(ctx, tx, account, warnings, equity, day);
  });
}

/** recordWarnings inside the caller's transaction, the active account locked (a test clock's step). */
export async function recordWarningsLocked(ctx: TradingContext, tx: Transaction, account: Account, warnings: Warning[], equity: number, day: string): Promise<void> {
  for (const w of warnings) {
    const fresh = await insertWarning(ctx.sequelize, tx, { accountNumber: account.number, attempt: account.attempt, rule: w.rule, period: warningPeriod(w.rule, day) });
    if (!fresh) continue;
    await appendEvent(ctx.sequelize, tx, {
      ...scopeOfAccount(account),
      type: 'account.warning',
      data: { account: account.number, trader_id: account.traderId, rule: w.rule, used_pct: w.usedPct, limit: w.limit, equity },
    });
  }
}
