import { tradingv1 } from '@propdesk/proto';
import { AppError } from '@propdesk/kit';
import { int64, iso, isoOrNull, numberOrNull, stringOrNull } from './common';

export type SideName = 'buy' | 'sell';
export type OrderTypeName = 'market' | 'limit' | 'stop';
export type PositionStatusName = 'pending' | 'open' | 'closed' | 'cancelled';

export const SIDES: Record<SideName, tradingv1.Side> = { buy: tradingv1.Side.SIDE_BUY, sell: tradingv1.Side.SIDE_SELL };
export const ORDER_TYPES: Record<OrderTypeName, tradingv1.OrderType> = {
  market: tradingv1.OrderType.ORDER_TYPE_MARKET,
  limit: tradingv1.OrderType.ORDER_TYPE_LIMIT,
  stop: tradingv1.OrderType.ORDER_TYPE_STOP,
};
const POSITION_STATUSES: Record<PositionStatusName, tradingv1.PositionStatus> = {
  pending: tradingv1.PositionStatus.POSITION_STATUS_PENDING,
  open: tradingv1.PositionStatus.POSITION_STATUS_OPEN,
  closed: tradingv1.PositionStatus.POSITION_STATUS_CLOSED,
  cancelled: tradingv1.PositionStatus.POSITION_STATUS_CANCELLED,
};

function nameOf<N extends string, V>(table: Record<N, V>, value: V, fallback: N): N {
  for (const [name, v] of Object.entries(table) as Array<[N, V]>) if (v === value) return name;
  return fallback;
}

export function positionStatusFilter(value: string | undefined): tradingv1.PositionStatus {
  if (value === undefined) return tradingv1.PositionStatus.POSITION_STATUS_UNSPECIFIED;
  if (!Object.prototype.hasOwnProperty.call(POSITION_STATUSES, value)) {
    throw new AppError('invalid_request', `status must be one of ${Object.keys(POSITION_STATUSES).join(', ')}`, 'status');
  }
  return POSITION_STATUSES[value as PositionStatusName];
}

export interface RestPosition {
  id: string;
  status: PositionStatusName;
  symbol: string;
  side: SideName;
  volume: number;
  type: OrderTypeName;
  price: number | null;
  open_price: number | null;
  stop_loss: number | null;
  take_profit: number | null;
  opened_at: string | null;
  close_price: number | null;
  profit: number | null;
  closed_at: string | null;
  close_reason: string | null;
}

export function toRestPosition(position: tradingv1.Position | undefined): RestPosition {
  if (position === undefined) throw new AppError('internal_error', 'the service answered without a position');
  return {
    id: position.id,
    status: nameOf(POSITION_STATUSES, position.status, 'open'),
    symbol: position.symbol,
    side: nameOf(SIDES, position.side, 'buy'),
    volume: position.volume,
    type: nameOf(ORDER_TYPES, position.type, 'market'),
    price: numberOrNull(position.price),
    open_price: numberOrNull(position.openPrice),
    stop_loss: numberOrNull(position.stopLoss),
    take_profit: numberOrNull(position.takeProfit),
    opened_at: isoOrNull(position.openedAt),
    close_price: numberOrNull(position.closePrice),
    profit: numberOrNull(position.profit),
    closed_at: isoOrNull(position.closedAt),
    close_reason: stringOrNull(position.closeReason),
  };
}

export interface RestDeal {
  id: string;
  position_id: string;
  symbol: string;
  side: SideName;
  volume: number;
  open_price: number;
  close_price: number;
  profit: number;
  opened_at: string | null;
  closed_at: string | null;
  close_reason: string | null;
  balance_after: number;
}

export function toRestDeal(deal: tradingv1.Deal): RestDeal {
  return {
    id: deal.id,
    position_id: deal.positionId,
    symbol: deal.symbol,
    side: nameOf(SIDES, deal.side, 'buy'),
    volume: deal.volume,
    open_price: deal.openPrice,
    close_price: deal.closePrice,
    profit: deal.profit,
    opened_at: isoOrNull(deal.openedAt),
    closed_at: isoOrNull(deal.closedAt),
    close_reason: stringOrNull(deal.closeReason),
    balance_after: deal.balanceAfter,
  };
}

export interface RestFlag {
  id: string;
  account: number;
  rule: string;
  action: string;
  reason: string;
  evidence: Record<string, unknown>;
  created_at: string;
}

export function toRestFlag(flag: tradingv1.Flag): RestFlag {
  return {
    id: flag.id,
    account: int64(flag.account),
    rule: flag.rule,
    action: flag.action,
    reason: flag.reason,
    evidence: (flag.evidence as Record<string, unknown> | undefined) ?? {},
    created_at: iso(flag.createdAt),
  };
}

export interface RestEquityPoint {
  time: string;
  equity: number;
  balance: number;
}

export function toRestEquityPoint(point: tradingv1.EquityPoint): RestEquityPoint {
  return { time: iso(point.time), equity: point.equity, balance: point.balance };
}
