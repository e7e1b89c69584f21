import { tradingv1 } from '@propdesk/proto';
import { z } from 'zod';
import { AppError } from '../errors';
import { isoTime as iso, isoTimeOrNull as isoOrNull, textOrNull as stringOrNull } from './common';

/**
 * Positions, deals, flags and equity points in their REST shape (SPEC sections 7 and 9), written
 * once for the gateway (which names the schemas in its document) and the panel.
 */

const int64 = (value: string): number => Number(value);
const numberOrNull = (value: number | undefined): number | null => (value === undefined ? null : value);

export const SIDE_NAMES = ['buy', 'sell'] as const;
export const ORDER_TYPE_NAMES = ['market', 'limit', 'stop'] as const;
export const POSITION_STATUS_NAMES = ['pending', 'open', 'closed', 'cancelled'] as const;

export type SideName = (typeof SIDE_NAMES)[number];
export type OrderTypeName = (typeof ORDER_TYPE_NAMES)[number];
export type PositionStatusName = (typeof POSITION_STATUS_NAMES)[number];

export const SIDES: Record<SideName, tradingv1.Side> = { buy: tradingv1.Side.SIDE_BUY, sell: tradingv1.Side.SIDE_SELL };
export const ORDER_TYPES: Record<OrderTypeName, tradingv1.OrderType> = {
  market: tradingv1.OrderType.ORDER_TYPE_MARKET,
  limit: tradingv1.OrderType.ORDER_TYPE_LIMIT,
  stop: tradingv1.OrderType.ORDER_TYPE_STOP,
};
export const POSITION_STATUSES: Record<PositionStatusName, tradingv1.PositionStatus> = {
  pending: tradingv1.PositionStatus.POSITION_STATUS_PENDING,
  open: tradingv1.PositionStatus.POSITION_STATUS_OPEN,
  closed: tradingv1.PositionStatus.POSITION_STATUS_CLOSED,
  cancelled: tradingv1.PositionStatus.POSITION_STATUS_CANCELLED,
};

function nameOf<N extends string, V>(table: Record<N, V>, value: V, fallback: N): N {
  for (const [name, v] of Object.entries(table) as Array<[N, V]>) if (v === value) return name;
  return fallback;
}

export function positionStatusFilter(value: PositionStatusName | undefined): tradingv1.PositionStatus {
  return value === undefined ? tradingv1.PositionStatus.POSITION_STATUS_UNSPECIFIED : POSITION_STATUSES[value];
}

const money = z.number();
const nullableTime = z.string().datetime().nullable();

export const restPositionSchema = z
  .object({
    id: z.string(),
    status: z.enum(POSITION_STATUS_NAMES),
    symbol: z.string(),
    side: z.enum(SIDE_NAMES),
    volume: z.number().describe('lots'),
    type: z.enum(ORDER_TYPE_NAMES),
    price: z.number().nullable().describe('the limit or stop price of a pending order'),
    open_price: z.number().nullable(),
    stop_loss: z.number().nullable(),
    take_profit: z.number().nullable(),
    opened_at: nullableTime,
    close_price: z.number().nullable(),
    profit: money.nullable(),
    closed_at: nullableTime,
    close_reason: z.string().nullable(),
    attempt: z.number().int().min(1).describe("the account's attempt it belongs to (1, then +1 per reset)"),
  })
  .strict();
export type RestPosition = z.output<typeof restPositionSchema>;

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
    attempt: position.attempt || 1,
  };
}

/** SPEC 14: a closed position, or a balance adjustment an operator made. */
export const DEAL_TYPE_NAMES = ['trade', 'balance'] as const;
export type DealTypeName = (typeof DEAL_TYPE_NAMES)[number];

export const restDealSchema = z
  .object({
    id: z.string(),
    type: z.enum(DEAL_TYPE_NAMES).describe('trade: a closed position; balance: a balance adjustment (profit is its amount; position, symbol, side, volume and prices null)'),
    position_id: z.string().nullable(),
    symbol: z.string().nullable(),
    // A union, not .nullable(): the document would list null as a type but not among the enum's values.
    side: z.union([z.enum(SIDE_NAMES), z.null()]),
    volume: z.number().nullable(),
    open_price: z.number().nullable(),
    close_price: z.number().nullable(),
    profit: money,
    opened_at: nullableTime,
    closed_at: nullableTime,
    close_reason: z.string().nullable(),
    balance_after: money,
    attempt: z.number().int().min(1).describe("the account's attempt it belongs to (1, then +1 per reset)"),
  })
  .strict();
export type RestDeal = z.output<typeof restDealSchema>;

export function toRestDeal(deal: tradingv1.Deal): RestDeal {
  const trade = deal.type !== tradingv1.DealType.DEAL_TYPE_BALANCE;
  return {
    id: deal.id,
    type: trade ? 'trade' : 'balance',
    position_id: trade ? deal.positionId : null,
    symbol: trade ? deal.symbol : null,
    side: trade ? nameOf(SIDES, deal.side, 'buy') : null,
    volume: trade ? deal.volume : null,
    open_price: trade ? deal.openPrice : null,
    close_price: trade ? deal.closePrice : null,
    profit: deal.profit,
    opened_at: isoOrNull(deal.openedAt),
    closed_at: isoOrNull(deal.closedAt),
    close_reason: stringOrNull(deal.closeReason),
    balance_after: deal.balanceAfter,
    attempt: deal.attempt || 1,
  };
}

export const restFlagSchema = z
  .object({
    id: z.string(),
    account: z.number().int(),
    rule: z.string(),
    action: z.enum(['flag', 'breach']).describe('flag: trading goes on; breach: the account is breached'),
    reason: z.string(),
    evidence: z.record(z.string(), z.unknown()).describe('the figures behind the decision'),
    created_at: z.string().datetime(),
    attempt: z.number().int().min(1).describe("the account's attempt it belongs to (1, then +1 per reset)"),
    reinstated_at: nullableTime.describe('SPEC 14: a breach an operator reinstated, when (null otherwise)'),
    reinstated_reason: z.string().nullable().describe('why it was reinstated'),
  })
  .strict();
export type RestFlag = z.output<typeof restFlagSchema>;

export function toRestFlag(flag: tradingv1.Flag): RestFlag {
  return {
    id: flag.id,
    account: int64(flag.account),
    rule: flag.rule,
    action: flag.action === 'breach' ? 'breach' : 'flag',
    reason: flag.reason,
    evidence: (flag.evidence as Record<string, unknown> | undefined) ?? {},
    created_at: iso(flag.createdAt),
    attempt: flag.attempt || 1,
    reinstated_at: isoOrNull(flag.reinstatedAt),
    reinstated_reason: stringOrNull(flag.reinstatedReason),
  };
}

export const restEquityPointSchema = z.object({ time: z.string().datetime(), equity: money, balance: money }).strict();
export type RestEquityPoint = z.output<typeof restEquityPointSchema>;

export function toRestEquityPoint(point: tradingv1.EquityPoint): RestEquityPoint {
  return { time: iso(point.time), equity: point.equity, balance: point.balance };
}
