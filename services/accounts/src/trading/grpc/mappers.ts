import type { Payout, PayoutDecider, PayoutStatus } from '../data/payouts';
import { AppError } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import type { Deal } from '../data/deals';
import type { Flag } from '../data/flags';
import type { PositionStatus } from '../data/positions';
import type { Instrument, Quote } from '../domain/instruments';
import type { OrderType } from '../domain/orders';
import type { Side } from '../domain/pnl';
import type { CurvePoint } from '../data/statistics';
import type { Adjustment } from '../use-cases/adjust-balance';
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

/** A balance deal (SPEC 14) leaves the trade's fields unset. */
export function toProtoDeal(d: Deal): tradingv1.Deal {
  return {
    id: d.id,
    account: String(d.accountNumber),
    type: d.type === 'balance' ? tradingv1.DealType.DEAL_TYPE_BALANCE : tradingv1.DealType.DEAL_TYPE_TRADE,
    positionId: d.positionId ?? '',
    symbol: d.symbol ?? '',
    side: d.side ? SIDE_TO_PROTO[d.side] : tradingv1.Side.SIDE_UNSPECIFIED,
    volume: d.volume ?? 0,
    openPrice: d.openPrice ?? 0,
    closePrice: d.closePrice ?? 0,
    profit: d.profit,
    openedAt: d.openedAt ?? undefined,
    closedAt: d.closedAt,
    closeReason: d.closeReason,
    balanceAfter: d.balanceAfter,
    attempt: d.attempt,
  };
}

export function toProtoFlag(f: Flag): tradingv1.Flag {
  return {
    id: f.id,
    account: String(f.accountNumber),
    rule: f.rule,
    action: f.action,
    reason: f.reason,
    evidence: f.evidence,
    createdAt: f.createdAt,
    attempt: f.attempt,
    reinstatedAt: f.reinstatedAt ?? undefined,
    reinstatedReason: f.reinstatedReason ?? undefined,
  };
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

const PAYOUT_STATUS_TO_PROTO: Record<PayoutStatus, tradingv1.PayoutStatus> = {
  pending: tradingv1.PayoutStatus.PAYOUT_STATUS_PENDING,
  approved: tradingv1.PayoutStatus.PAYOUT_STATUS_APPROVED,
  rejected: tradingv1.PayoutStatus.PAYOUT_STATUS_REJECTED,
  paid: tradingv1.PayoutStatus.PAYOUT_STATUS_PAID,
};

const DECIDER_TO_PROTO: Record<PayoutDecider['type'], tradingv1.DeciderType> = {
  api_key: tradingv1.DeciderType.DECIDER_TYPE_API_KEY,
  user: tradingv1.DeciderType.DECIDER_TYPE_USER,
};

/** A status filter: UNSPECIFIED = every status; an unknown value is invalid_request naming `status`. */
export function payoutStatusFromProto(value: tradingv1.PayoutStatus | undefined): PayoutStatus | undefined {
  if (value === undefined || value === tradingv1.PayoutStatus.PAYOUT_STATUS_UNSPECIFIED) return undefined;
  const found = (Object.entries(PAYOUT_STATUS_TO_PROTO) as Array<[PayoutStatus, tradingv1.PayoutStatus]>).find(([, v]) => v === value);
  if (!found) throw new AppError('invalid_request', 'status must be one of pending, approved, rejected, paid', 'status');
  return found[0];
}

/** The decider of a request (undefined type when unset or unknown: the use case refuses it). */
export function deciderFromProto(value: tradingv1.PayoutDecider | undefined): { type: PayoutDecider['type'] | undefined; id: string } | undefined {
  if (!value) return undefined;
  const found = (Object.entries(DECIDER_TO_PROTO) as Array<[PayoutDecider['type'], tradingv1.DeciderType]>).find(([, v]) => v === value.type);
  return { type: found?.[0], id: value.id };
}

export function toProtoPayout(p: Payout): tradingv1.Payout {
  return {
    id: p.id,
    account: String(p.accountNumber),
    amount: p.amount,
    profitSplitPct: p.profitSplitPct,
    traderShare: p.traderShare,
    firmShare: p.firmShare,
    balanceAfter: p.balanceAfter ?? undefined,
    createdAt: p.createdAt,
    livemode: p.livemode,
    status: PAYOUT_STATUS_TO_PROTO[p.status],
    requestedAt: p.requestedAt,
    decidedAt: p.decidedAt ?? undefined,
    decidedBy: p.decidedBy ? { type: DECIDER_TO_PROTO[p.decidedBy.type], id: p.decidedBy.id } : undefined,
    reason: p.reason ?? undefined,
    reference: p.reference ?? undefined,
    paidAt: p.paidAt ?? undefined,
  };
}

export function toProtoAdjustment(a: Adjustment): tradingv1.Adjustment {
  return { id: a.id, account: String(a.accountNumber), amount: a.amount, reason: a.reason, balanceAfter: a.balanceAfter, createdAt: a.createdAt };
}
