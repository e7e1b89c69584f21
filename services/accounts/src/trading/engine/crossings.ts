import type { Position } from '../data/positions';
import { exitPosition } from '../use-cases/close-position';
import { fillPendingOrder } from '../use-cases/fill-pending-order';
import { flagWeekendHolding } from '../use-cases/flag-weekend-holding';
import type { TradingContext } from '../use-cases/trading-context';
import { guarded, inLanes } from './lanes';

/** What a quote's marks crossed besides a threshold (marker.ts): each takes a database round trip. */
export interface Crossings {
  /** Resting orders the quote triggered. */
  fills: Position[];
  /** Stop losses and take profits hit, at their level. */
  exits: Array<{ position: Position; reason: 'stop_loss' | 'take_profit'; price: number }>;
  /** Positions held into their weekend. */
  weekend: Position[];
}

export function nothingCrossed(c: Crossings): boolean {
  return c.fills.length === 0 && c.exits.length === 0 && c.weekend.length === 0;
}

/**
 * Fills, closes and flags what crossed, each in a transaction that locks the account and checks
 * again (another replica may have got there first), a few at once; returns the accounts whose
 * positions changed (to be reloaded and evaluated).
 */
export async function actOnCrossings(ctx: TradingContext, c: Crossings): Promise<number[]> {
  const changed = new Set<number>();
  await inLanes(c.fills, async (p) => {
    if (await guarded(ctx.logger, () => fillPendingOrder(ctx, p.accountNumber, p.id, p.price as number))) changed.add(p.accountNumber);
  });
  await inLanes(c.exits, async (e) => {
    const closed = await guarded(ctx.logger, () => exitPosition(ctx, { accountNumber: e.position.accountNumber, positionId: e.position.id, reason: e.reason, price: e.price }));
    if (closed) changed.add(e.position.accountNumber);
  });
  await inLanes(c.weekend, async (p) => {
    if (p.openedAt) await guarded(ctx.logger, () => flagWeekendHolding(ctx, { ...p, openedAt: p.openedAt as Date }));
  });
  return [...changed];
}
