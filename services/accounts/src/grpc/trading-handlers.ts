import type { sendUnaryData, ServerReadableStream } from '@grpc/grpc-js';
import { AppError, toServiceError } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { findAccount } from '../data/accounts';
import type { AccountsDeps } from '../deps';
import { accountNumber, organizationId, uuidParam } from '../domain/validation';
import type { Deal } from '../trading/data/deals';
import type { Flag } from '../trading/data/flags';
import type { Position, PositionStatus } from '../trading/data/positions';
import { INSTRUMENTS, roundMoney, validateQuote, type Quote } from '../trading/domain/instruments';
import type { OrderType } from '../trading/domain/orders';
import { floatingProfit, type Side } from '../trading/domain/pnl';
import { engineFor, type TradingEngine } from '../trading/engine-registry';
import { breachAccountManually } from '../trading/use-cases/breach-account';
import { closePosition } from '../trading/use-cases/close-position';
import { getAnalytics } from '../trading/use-cases/get-analytics';
import { getReport } from '../trading/use-cases/get-report';
import { getEquityCurve, listAccountDeals, listAccountFlags, listAccountPositions } from '../trading/use-cases/list-trading';
import { placeOrder } from '../trading/use-cases/place-order';
import { toProtoAccount } from './mappers';
import type { Handlers } from './typed';

const SIDES: Record<number, Side> = { [accountsv1.Side.SIDE_BUY]: 'buy', [accountsv1.Side.SIDE_SELL]: 'sell' };
const SIDE_TO_PROTO: Record<Side, accountsv1.Side> = { buy: accountsv1.Side.SIDE_BUY, sell: accountsv1.Side.SIDE_SELL };
const TYPES: Record<number, OrderType> = {
  // Unset means market: the simplest order is the default.
  [accountsv1.OrderType.ORDER_TYPE_UNSPECIFIED]: 'market',
  [accountsv1.OrderType.ORDER_TYPE_MARKET]: 'market',
  [accountsv1.OrderType.ORDER_TYPE_LIMIT]: 'limit',
  [accountsv1.OrderType.ORDER_TYPE_STOP]: 'stop',
};
const TYPE_TO_PROTO: Record<OrderType, accountsv1.OrderType> = {
  market: accountsv1.OrderType.ORDER_TYPE_MARKET,
  limit: accountsv1.OrderType.ORDER_TYPE_LIMIT,
  stop: accountsv1.OrderType.ORDER_TYPE_STOP,
};
const STATUS_TO_PROTO: Record<PositionStatus, accountsv1.PositionStatus> = {
  pending: accountsv1.PositionStatus.POSITION_STATUS_PENDING,
  open: accountsv1.PositionStatus.POSITION_STATUS_OPEN,
  closed: accountsv1.PositionStatus.POSITION_STATUS_CLOSED,
  cancelled: accountsv1.PositionStatus.POSITION_STATUS_CANCELLED,
};

function statusFilter(value: accountsv1.PositionStatus | undefined): PositionStatus | undefined {
  if (value === undefined || value === accountsv1.PositionStatus.POSITION_STATUS_UNSPECIFIED) return undefined;
  const found = (Object.entries(STATUS_TO_PROTO) as Array<[PositionStatus, accountsv1.PositionStatus]>).find(([, v]) => v === value);
  if (!found) throw new AppError('invalid_request', 'status must be one of pending, open, closed, cancelled', 'status');
  return found[0];
}

const opt = (v: number | null): number | undefined => (v === null ? undefined : v);

function toProtoPosition(engine: TradingEngine, p: Position): accountsv1.Position {
  const floating =
    p.status === 'open' && p.openPrice !== null && engine.quote(p.symbol)
      ? roundMoney(floatingProfit({ symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice }, engine.ctx.quote))
      : undefined;
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
    floatingProfit: floating,
  };
}

function toProtoDeal(d: Deal): accountsv1.Deal {
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
  };
}

function toProtoFlag(f: Flag): accountsv1.Flag {
  return { id: f.id, account: String(f.accountNumber), rule: f.rule, action: f.action, reason: f.reason, evidence: f.evidence, createdAt: f.createdAt };
}

function toProtoQuote(q: Quote): accountsv1.Quote {
  return { symbol: q.symbol, bid: q.bid, ask: q.ask, time: q.time };
}

/** Quotes are stamped with the time the engine received them: feeds' clocks do not order our marks. */
function receivedQuote(input: accountsv1.Quote | undefined, prefix: string): Quote {
  if (!input) throw new AppError('invalid_request', 'quote is required', 'quote');
  return { ...validateQuote(input, prefix), time: new Date() };
}

/** The trading, market-data and report RPCs of AccountsService: proto in, use case, proto out. */
export function createTradingHandlers(deps: AccountsDeps) {
  const engine = engineFor(deps);
  const ctx = engine.ctx;
  const target = async (req: { organizationId: string; number: string }) => {
    await engine.ready();
    return { org: organizationId(req.organizationId), number: accountNumber(req.number) };
  };

  return {
    async placeOrder(req) {
      const { org, number } = await target(req);
      const side = SIDES[req.side];
      if (!side) throw new AppError('invalid_request', 'side must be buy or sell', 'side');
      const type = TYPES[req.type];
      if (!type) throw new AppError('invalid_request', 'type must be market, limit or stop', 'type');
      if (typeof req.symbol === 'string' && req.symbol.length > 0) await engine.refreshQuote(req.symbol.toUpperCase());
      const position = await placeOrder(ctx, org, number, {
        symbol: req.symbol,
        side,
        type,
        volume: req.volume,
        price: type === 'market' ? undefined : req.price,
        stopLoss: req.stopLoss,
        takeProfit: req.takeProfit,
      });
      await engine.afterAccountChange(number);
      return { position: toProtoPosition(engine, position) };
    },

    async closePosition(req) {
      const { org, number } = await target(req);
      const positionId = uuidParam(req.positionId, 'position_id');
      const position = await closePosition(ctx, { organizationId: org, accountNumber: number, positionId, reason: 'manual' });
      if (!position) throw new AppError('not_found', 'position not found');
      await engine.afterAccountChange(number);
      return { position: toProtoPosition(engine, position) };
    },

    async breachAccount(req) {
      const { org, number } = await target(req);
      await breachAccountManually(ctx, org, number, req.reason, engine.startOfDayBalance(number));
      await engine.afterAccountChange(number);
      const account = await findAccount(deps.sequelize, org, number);
      if (!account) throw new AppError('not_found', 'account not found');
      return { account: toProtoAccount(account) };
    },

    async listPositions(req) {
      const { org, number } = await target(req);
      const page = await listAccountPositions(ctx, deps.cursors, {
        organizationId: org,
        accountNumber: number,
        pageSize: req.pageSize,
        pageToken: req.pageToken,
        status: statusFilter(req.status),
      });
      return { positions: page.items.map((p) => toProtoPosition(engine, p)), nextPageToken: page.nextPageToken };
    },

    async listTrades(req) {
      const { org, number } = await target(req);
      const page = await listAccountDeals(ctx, deps.cursors, { organizationId: org, accountNumber: number, pageSize: req.pageSize, pageToken: req.pageToken });
      return { deals: page.items.map(toProtoDeal), nextPageToken: page.nextPageToken };
    },

    async listFlags(req) {
      const { org, number } = await target(req);
      const page = await listAccountFlags(ctx, deps.cursors, { organizationId: org, accountNumber: number, pageSize: req.pageSize, pageToken: req.pageToken });
      return { flags: page.items.map(toProtoFlag), nextPageToken: page.nextPageToken };
    },

    async getAnalytics(req) {
      const { org, number } = await target(req);
      return { analytics: await getAnalytics(ctx, org, number) };
    },

    async getEquityCurve(req) {
      const { org, number } = await target(req);
      const points = await getEquityCurve(ctx, org, number, req.from ?? null, req.to ?? null);
      return { points: points.map((p) => ({ time: p.time, equity: p.equity, balance: p.balance })) };
    },

    async getReport(req) {
      const { org, number } = await target(req);
      return { report: await getReport(ctx, org, number) };
    },

    async listInstruments() {
      return {
        instruments: INSTRUMENTS.map((i) => ({
          symbol: i.symbol,
          contractSize: i.contractSize,
          digits: i.digits,
          baseCurrency: i.baseCurrency,
          quoteCurrency: i.quoteCurrency,
        })),
      };
    },

    async publishQuote(req) {
      const quote = receivedQuote(req.quote, 'quote.');
      await engine.publishQuote(quote);
      return { quote: toProtoQuote(quote) };
    },

    streamQuotes(call: ServerReadableStream<accountsv1.StreamQuotesRequest, accountsv1.StreamQuotesResponse>, callback: sendUnaryData<accountsv1.StreamQuotesResponse>) {
      let accepted = 0;
      let rejected = 0;
      const inFlight = new Set<Promise<void>>();
      call.on('data', (req: accountsv1.StreamQuotesRequest) => {
        let quote: Quote;
        try {
          quote = receivedQuote(req.quote, 'quote.');
        } catch {
          rejected += 1;
          return;
        }
        accepted += 1;
        const done: Promise<void> = engine.streamQuote(quote).finally(() => inFlight.delete(done));
        inFlight.add(done);
      });
      call.on('error', () => undefined);
      call.on('end', () => {
        Promise.all([...inFlight]).then(
          () => callback(null, { accepted: String(accepted), rejected: String(rejected) }),
          (err: unknown) => callback(toServiceError(err), null),
        );
      });
    },
  } satisfies Handlers<accountsv1.AccountsServiceServer>;
}
