import { appendEvent, readAccount, scopeOfAccount } from '../core-port';
import { insertFlag } from '../data/flags';
import type { TradingContext } from './trading-context';

/** A position held over the weekend raises one flag (deduplicated per position); trading continues. */
export async function flagWeekendHolding(
  ctx: TradingContext,
  position: { id: string; accountNumber: number; organizationId: string; symbol: string; openedAt: Date },
): Promise<boolean> {
  const now = ctx.now();
  return ctx.sequelize.transaction(async (tx) => {
    // The event is of the account's mode (SPEC 13); the position knows only its organization.
    const account = await readAccount(ctx.sequelize, position.accountNumber, undefined, tx);
    if (!account) return false;
    const reason = `weekend_holding: position ${position.id} (${position.symbol}) opened ${position.openedAt.toISOString()} was held over the weekend`;
    const flag = await insertFlag(ctx.sequelize, tx, {
      accountNumber: position.accountNumber,
      organizationId: position.organizationId,
      rule: 'weekend_holding',
      action: 'flag',
      reason,
      evidence: { position_id: position.id, symbol: position.symbol, opened_at: position.openedAt.toISOString(), time: now.toISOString() },
      dedupeKey: `weekend_holding:${position.id}`,
      createdAt: now,
    });
    if (!flag) return false;
    await appendEvent(ctx.sequelize, tx, {
      ...scopeOfAccount(account),
      type: 'account.flagged',
      data: { account: position.accountNumber, rule: 'weekend_holding', reason, position_id: position.id },
    });
    return true;
  });
}
