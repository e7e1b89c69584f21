import type { Payout } from '../data/payouts';
import { AppError } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import type { Deal } from '../data/deals';
import type { Flag } from '../data/flags';
import type { PositionStatus } from '../data/positions';
import type { Instrument, Quote } from '../domain/instruments';
import type { OrderType } from '../domain/orders';
import type { Side } from '../domain/pnl';
import type { CurvePoint } from '../data/statistics';
import type { MarkedPosition } from '../use-cases/trading-context';

const SIDES: Record<number, Side> = { [tradingv1.Side.SIDE_BUY]: 'buy', [tradingv1.Side.SIDE_SELL]: 'sell' };
const SIDE_TO_PROTO: Record<Side, tradingv1.Side> = { buy: tradingv1.Side.SIDE_BUY, sell: tradingv1.Side.SIDE_SELL };
const TYPES: Record<number, OrderType> = {
  // Unset means market: the simplest order is the default.
  [tradingv1.OrderType.ORDER_TYPE_UNSPECIFIED]: 'market',
  [tradingv1.OrderType.ORDER_TYPE_MARKET]: 'market',
  [tradingv1.OrderType.ORDER_TYPE_LIMIT]: 'limit',
  [tradingv1.OrderType.ORDER_TYPE_STOP]: 'stop',
};
const TYPE_TO_PROTO: Record<OrderType, tradingv1.OrderType> = {
  market: tradingv1.OrderType.ORDER_TYPE_MARKET,
  limit: tradingv1.OrderType.ORDER_TYPE_LIMIT,
  stop: tradingv1.OrderType.ORDER_TYPE_STOP,
};
const STATUS_TO_PROTO: Record<PositionStatus, tradingv1.PositionStatus> = {
  pending: tradingv1.PositionStatus.POSITION_STATUS_PENDING,
  open: tradingv1.PositionStatus.POSITION_STATUS_OPEN,
  closed: tradingv1.PositionStatus.POSITION_STATUS_CLOSED,
  cancelled: tradingv1.PositionStatus.POSITION_STATUS_CANCELLED,
};

/** Undefined for anything but buy or sell (the use case names the field). */
export function sideFromProto(value: tradingv1.Side): Side | undefined {
  return SIDES[value];
}

/** Undefined for an unknown order type; unset is market. */
export function orderTypeFromProto(value: tradingv1.OrderType): OrderType | undefined {
  return TYPES[value];
}

/** UNSPECIFIED = every status; anything unknown is invalid_request naming `status`. */
export function positionStatusFromProto(value: tradingv1.PositionStatus | undefined): PositionStatus | undefined {
  if (value === undefined || value === tradingv1.PositionStatus.POSITION_STATUS_UNSPECIFIED) return undefined;
  const found = (Object.entries(STATUS_TO_PROTO) as Array<[PositionStatus, tradingv1.PositionStatus]>).find(([, v]) => v === value);
  if (!found) throw new AppError('invalid_request', 'status must be one of pending, open, closed, cancelled', 'status');
  return found[0];
}

const opt = (v: number | null): number | undefined => (v === null ? undefined : v);

export function toProtoPosition(p: MarkedPosition): tradingv1.Position {
  return {
    id: p.id,
    account: String(p.accountNumber),
    status: STATUS_TO_PROTO[p.status],
    symbol: p.symbol,
    side: SIDE_TO_PROTO[p.side],
    volume: p.volume,
    type: TYPE_TO_PROTO[p.type],
    price: opt(p.price),
    openPrice: opt(p.openPrice),
    stopLoss: opt(p.stopLoss),
    takeProfit: opt(p.takeProfit),
    openedAt: p.openedAt ?? undefined,
    closePrice: opt(p.closePrice),
    profit: opt(p.profit),
    closedAt: p.closedAt ?? undefined,
    closeReason: p.closeReason,
    createdAt: p.createdAt,
    floatingProfit: opt(p.floatingProfit),
    currentPrice: opt(p.currentPrice),
    attempt: p.attempt,
  };
}

export function toProtoDeal(d: Deal): tradingv1.Deal {
  return {
    id: d.id,
    account: String(d.accountNumber),
    positionId: d.positionId,
    symbol: d.symbol,
    side: SIDE_TO_PROTO[d.side],
    volume: d.volume,
    openPrice: d.openPrice,
    closePrice: d.closePrice,
    profit: d.profit,
    openedAt: d.openedAt,
    closedAt: d.closedAt,
    closeReason: d.closeReason,
    balanceAfter: d.balanceAfter,
    attempt: d.attempt,
  };
}

export function toProtoFlag(f: Flag): tradingv1.Flag {
  return { id: f.id, account: String(f.accountNumber), rule: f.rule, action: f.action, reason: f.reason, evidence: f.evidence, createdAt: f.createdAt, attempt: f.attempt };
}

export function toProtoEquityPoint(p: CurvePoint): tradingv1.EquityPoint {
  return { time: p.time, equity: p.equity, balance: p.balance };
}

export function toProtoInstrument(i: Instrument): tradingv1.Instrument {
  return { symbol: i.symbol, contractSize: i.contractSize, digits: i.digits, baseCurrency: i.baseCurrency, quoteCurrency: i.quoteCurrency };
}

export function toProtoQuote(q: Quote): tradingv1.Quote {
  return { symbol: q.symbol, bid: q.bid, ask: q.ask, time: q.time };
}

export function toProtoPayout(p: Payout): tradingv1.Payout {
  return {
    id: p.id,
    account: String(p.accountNumber),
    amount: p.amount,
    profitSplitPct: p.profitSplitPct,
    traderShare: p.traderShare,
    firmShare: p.firmShare,
    balanceAfter: p.balanceAfter,
    createdAt: p.createdAt,
    livemode: p.livemode,
  };
}
