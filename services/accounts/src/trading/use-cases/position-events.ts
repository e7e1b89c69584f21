import type { EventData } from '@propdesk/kit';
import type { Position } from '../data/positions';

/** What every position event says of the position. */
function positionFields(accountNumber: number, p: Position) {
  return { account: accountNumber, position_id: p.id, symbol: p.symbol, side: p.side, volume: p.volume };
}

/** The position.opened payload (snake_case, as integrators read it), of a position that filled. */
export function positionOpenedData(accountNumber: number, p: Position): EventData<'position.opened'> {
  if (p.openPrice === null || p.openedAt === null) throw new Error(`position ${p.id} has not filled: it has no position.opened`);
  return {
    ...positionFields(accountNumber, p),
    type: p.type,
    open_price: p.openPrice,
    stop_loss: p.stopLoss,
    take_profit: p.takeProfit,
    opened_at: p.openedAt.toISOString(),
  };
}

/** The position.closed payload, of a position that was open. */
export function positionClosedData(accountNumber: number, p: Position, close: { price: number; profit: number; reason: string }): EventData<'position.closed'> {
  if (p.openPrice === null) throw new Error(`position ${p.id} was never open: it has no position.closed`);
  return { ...positionFields(accountNumber, p), open_price: p.openPrice, close_price: close.price, profit: close.profit, reason: close.reason };
}
