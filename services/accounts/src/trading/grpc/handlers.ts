import { exactlyOnce, type AsyncServiceImplementation, type CursorCodec, type Logger, type Sequelize } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { toProtoAccount } from '../core-port';
import { INSTRUMENTS } from '../domain/instruments';
import { breachAccount } from '../use-cases/breach-account';
import { resetAccount } from '../use-cases/reset-account';
import { createPayout, listPayouts } from '../use-cases/payouts';
import { approvePayout, getPayout, listOrganizationPayouts, markPayoutPaid, rejectPayout } from '../use-cases/payout-decisions';
import { reinstateAccount } from '../use-cases/reinstate-account';
import { adjustBalance } from '../use-cases/adjust-balance';
import { closePosition } from '../use-cases/close-position';
import { getAnalytics } from '../use-cases/get-analytics';
import { getEquityCurve } from '../use-cases/get-equity-curve';
import { getTerms } from '../use-cases/terms-section';
import { getReport } from '../use-cases/get-report';
import { listFlags } from '../use-cases/list-flags';
import { listPositions } from '../use-cases/list-positions';
import { listTrades } from '../use-cases/list-trades';
import { placeOrder } from '../use-cases/place-order';
import { previewOrder } from '../use-cases/preview-order';
import { createNewsEvent, deleteNewsEvent, listNewsEvents } from '../use-cases/news-events';
import { toProtoNewsEvent, toProtoPreview } from './rule-pack-mappers';
import { publishQuote } from '../use-cases/publish-quote';
import { publishTestClockQuote } from '../use-cases/publish-test-clock-quote';
import type { Payout } from '../data/payouts';
import type { ClockQuotes, LiveEngine, Markets } from '../use-cases/trading-context';
import {
  orderTypeFromProto,
  positionStatusFromProto,
  sideFromProto,
  toProtoDeal,
  toProtoEquityPoint,
  toProtoFlag,
  toProtoInstrument,
  toProtoPosition,
  toProtoPayout,
  toProtoQuote,
  toProtoAdjustment,
  deciderFromProto,
  payoutStatusFromProto,
} from './mappers';
import { createStreamQuotesHandler } from './stream-quotes-handler';

export interface TradingHandlerDeps {
  /** The live market: its quotes and feed. */
  engine: LiveEngine;
  /** Every account's market (the live one, or its test clock's) and the clocks' own quotes. */
  markets: Markets & ClockQuotes;
  cursors: CursorCodec;
  /** The service's database, where the writes' Idempotency-Key records live (kit idempotency.ts). */
  sequelize: Sequelize;
  logger: Logger;
}

const payoutResponse = (payout: Payout) => ({ payout: toProtoPayout(payout) });

/** TradingService: proto in, use case, proto out. Typed against the service: a forgotten RPC is a compile error. */
export function createTradingHandlers({ engine, markets, cursors, sequelize, logger }: TradingHandlerDeps): AsyncServiceImplementation<tradingv1.TradingServiceServer> {
  // A decision on a payout finds it, then acts in its account's market.
  const desk = { sequelize, markets };
  const news = { sequelize, cursors };
  return {
    // Writes run through the kit's exactly-once helper: with an Idempotency-Key, once.
    placeOrder(req, ctx) {
      const order = { ...req, side: sideFromProto(req.side), type: orderTypeFromProto(req.type) };
      return exactlyOnce(ctx, sequelize, tradingv1.PlaceOrderResponse, (position) => ({ position: toProtoPosition(position) }), () => placeOrder(markets, order), logger);
    },
    closePosition(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.ClosePositionResponse, (position) => ({ position: toProtoPosition(position) }), () => closePosition(markets, req), logger);
    },
    breachAccount(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.BreachAccountResponse, (account) => ({ account: toProtoAccount(account) }), () => breachAccount(markets, req), logger);
    },
    resetAccount(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.ResetAccountResponse, (account) => ({ account: toProtoAccount(account) }), () => resetAccount(markets, req), logger);
    },
    createPayout(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.CreatePayoutResponse, payoutResponse, () => createPayout(markets, req), logger);
    },
    async listPayouts(req) {
      const page = await listPayouts(markets, cursors, req);
      return { payouts: page.items.map(toProtoPayout), nextPageToken: page.nextPageToken };
    },
    async listOrganizationPayouts(req) {
      const page = await listOrganizationPayouts(engine, cursors, { ...req, status: payoutStatusFromProto(req.status) });
      return { payouts: page.items.map(toProtoPayout), nextPageToken: page.nextPageToken };
    },
    async getPayout(req) {
      return { payout: toProtoPayout(await getPayout(engine, req)) };
    },
    approvePayout(req, ctx) {
      const input = { ...req, decidedBy: deciderFromProto(req.decidedBy) };
      return exactlyOnce(ctx, sequelize, tradingv1.ApprovePayoutResponse, payoutResponse, () => approvePayout(desk, input), logger);
    },
    rejectPayout(req, ctx) {
      const input = { ...req, decidedBy: deciderFromProto(req.decidedBy) };
      return exactlyOnce(ctx, sequelize, tradingv1.RejectPayoutResponse, payoutResponse, () => rejectPayout(desk, input), logger);
    },
    markPayoutPaid(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.MarkPayoutPaidResponse, payoutResponse, () => markPayoutPaid(desk, req), logger);
    },
    reinstateAccount(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.ReinstateAccountResponse, (account) => ({ account: toProtoAccount(account) }), () => reinstateAccount(markets, req), logger);
    },
    adjustBalance(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.AdjustBalanceResponse, (adjustment) => ({ adjustment: toProtoAdjustment(adjustment) }), () => adjustBalance(markets, req), logger);
    },
    async listPositions(req) {
      const page = await listPositions(markets, cursors, { ...req, status: positionStatusFromProto(req.status) });
      return { positions: page.items.map(toProtoPosition), nextPageToken: page.nextPageToken };
    },
    async listTrades(req) {
      const page = await listTrades(markets, cursors, req);
      return { deals: page.items.map(toProtoDeal), nextPageToken: page.nextPageToken };
    },
    async listFlags(req) {
      const page = await listFlags(markets, cursors, req);
      return { flags: page.items.map(toProtoFlag), nextPageToken: page.nextPageToken };
    },
    async getAnalytics(req) {
      return { analytics: await getAnalytics(markets, req) };
    },
    async getEquityCurve(req) {
      const points = await getEquityCurve(markets, { ...req, from: req.from ?? null, to: req.to ?? null, maxPoints: req.maxPoints });
      return { points: points.map(toProtoEquityPoint) };
    },
    async getReport(req) {
      return { report: await getReport(markets, req) };
    },
    async getTerms(req) {
      return { terms: await getTerms(markets, req) };
    },
    async listInstruments() {
      return { instruments: INSTRUMENTS.map(toProtoInstrument) };
    },
    async publishQuote(req) {
      return { quote: toProtoQuote(await publishQuote(engine, req.quote)) };
    },
    streamQuotes: createStreamQuotesHandler(engine),
    // SPEC 15. A preview reads only: no Idempotency-Key record, nothing to replay.
    async previewOrder(req) {
      return toProtoPreview(await previewOrder(markets, { ...req, side: sideFromProto(req.side), type: orderTypeFromProto(req.type) }));
    },
    createNewsEvent(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.CreateNewsEventResponse, (event) => ({ newsEvent: toProtoNewsEvent(event) }), () => createNewsEvent(news, req), logger);
    },
    async listNewsEvents(req) {
      const page = await listNewsEvents(news, { ...req, from: req.from, to: req.to });
      return { newsEvents: page.events.map(toProtoNewsEvent), nextPageToken: page.nextPageToken };
    },
    deleteNewsEvent(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.DeleteNewsEventResponse, (deleted) => deleted, () => deleteNewsEvent(news, req), logger);
    },
    publishTestClockQuote(req, ctx) {
      return exactlyOnce(ctx, sequelize, tradingv1.PublishTestClockQuoteResponse, (quote) => ({ quote: toProtoQuote(quote) }), () => publishTestClockQuote(markets, { sequelize }, req), logger);
    },
  };
}
