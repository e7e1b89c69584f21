import type { Position } from '../data/positions';

/** What every position event says of the position. */
function positionFields(accountNumber: number, p: Position): Record<string, unknown> {
  return { account: accountNumber, position_id: p.id, symbol: p.symbol, side: p.side, volume: p.volume };
}

/** The position.opened payload (snake_case, as integrators read it). */
export function positionOpenedData(accountNumber: number, p: Position): Record<string, unknown> {
  return {
    ...positionFields(accountNumber, p),
    type: p.type,
    open_price: p.openPrice,
    stop_loss: p.stopLoss,
    take_profit: p.takeProfit,
    opened_at: p.openedAt?.toISOString() ?? null,
  };
}

/** The position.closed payload. */
export function positionClosedData(accountNumber: number, p: Position, close: { price: number; profit: number; reason: string }): Record<string, unknown> {
  return { ...positionFields(accountNumber, p), open_price: p.openPrice, close_price: close.price, profit: close.profit, reason: close.reason };
}
