import { typedEvent, type EventData, type Transaction } from '@propdesk/kit';
import { appendEvent, appendEvents, readAccount, scopeOfAccount, type Account, type NewEvent } from '../core-port';
import { insertFlag, insertFlags, type NewFlag } from '../data/flags';
import type { Position } from '../data/positions';
import { nextWeekendStart } from '../domain/calendar';
import type { TradingContext } from './trading-context';

type HeldPosition = { id: string; accountNumber: number; organizationId: string; symbol: string; openedAt: Date };

/** The flag and its event of one position held into its weekend, at `now`. */
function weekendFlag(position: HeldPosition, now: Date): { flag: NewFlag & { dedupeKey: string }; data: EventData<'account.flagged'> } {
  const reason = `weekend_holding: position ${position.id} (${position.symbol}) opened ${position.openedAt.toISOString()} was held over the weekend`;
  return {
    flag: {
      accountNumber: position.accountNumber,
      organizationId: position.organizationId,
      rule: 'weekend_holding',
      action: 'flag',
      reason,
      evidence: { position_id: position.id, symbol: position.symbol, opened_at: position.openedAt.toISOString(), time: now.toISOString() },
      dedupeKey: `weekend_holding:${position.id}`,
      createdAt: now,
    },
    data: { account: position.accountNumber, rule: 'weekend_holding', reason, position_id: position.id },
  };
}

/** A position held over the weekend raises one flag (deduplicated per position); trading continues. */
export async function flagWeekendHolding(ctx: TradingContext, position: HeldPosition): Promise<boolean> {
  const now = ctx.now();
  return ctx.sequelize.transaction(async (tx) => {
    // The event is of the account's mode (SPEC 13); the position knows only its organization.
    const account = await readAccount(ctx.sequelize, position.accountNumber, undefined, tx);
    if (!account) return false;
    const { flag: newFlag, data } = weekendFlag(position, now);
    const flag = await insertFlag(ctx.sequelize, tx, newFlag);
    if (!flag) return false;
    await appendEvent(ctx.sequelize, tx, { ...scopeOfAccount(account), type: 'account.flagged', data });
    return true;
  });
}

/**
 * A weekend begins on a test clock (SPEC 13), inside the step's transaction: every open position
 * of the clock's accounts (active, locked) whose terms flag weekend holding and whose weekend has
 * begun by `ctx.now()` is flagged at that moment, once per position, with its account.flagged.
 */
export async function flagWeekendHoldingsLocked(ctx: TradingContext, tx: Transaction, accounts: readonly Account[], live: readonly Position[]): Promise<void> {
  const now = ctx.now();
  const byNumber = new Map(accounts.map((a) => [a.number, a]));
  const due = live.flatMap((p) => {
    const account = byNumber.get(p.accountNumber);
    if (!account?.terms.flagWeekendHolding || p.status !== 'open' || !p.openedAt || nextWeekendStart(p.openedAt) > now.getTime()) return [];
    return [{ account, ...weekendFlag({ ...p, openedAt: p.openedAt }, now) }];
  });
  const recorded = await insertFlags(
    ctx.sequelize,
    tx,
    due.map((d) => d.flag),
  );
  const events: NewEvent[] = due
    .filter((d) => recorded.has(d.flag.dedupeKey))
    .map((d) => ({ ...scopeOfAccount(d.account), ...typedEvent('account.flagged', d.data) }));
  await appendEvents(ctx.sequelize, tx, events);
}
