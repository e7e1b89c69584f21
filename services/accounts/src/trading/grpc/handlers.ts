import type { AsyncServiceImplementation, CursorCodec } from '@propdesk/kit';
import type { tradingv1 } from '@propdesk/proto';
import { toProtoAccount } from '../core-port';
import { INSTRUMENTS } from '../domain/instruments';
import { breachAccount } from '../use-cases/breach-account';
import { resetAccount } from '../use-cases/reset-account';
import { createPayout, listPayouts } from '../use-cases/payouts';
import { closePosition } from '../use-cases/close-position';
import { getAnalytics } from '../use-cases/get-analytics';
import { getEquityCurve } from '../use-cases/get-equity-curve';
import { getTerms } from '../use-cases/terms-section';
import { getReport } from '../use-cases/get-report';
import { listFlags } from '../use-cases/list-flags';
import { listPositions } from '../use-cases/list-positions';
import { listTrades } from '../use-cases/list-trades';
import { placeOrder } from '../use-cases/place-order';
import { publishQuote } from '../use-cases/publish-quote';
import type { LiveEngine } from '../use-cases/trading-context';
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
} from './mappers';
import { createStreamQuotesHandler } from './stream-quotes-handler';

export interface TradingHandlerDeps {
  engine: LiveEngine;
  cursors: CursorCodec;
}

/** TradingService: proto in, use case, proto out. Typed against the service: a forgotten RPC is a compile error. */
export function createTradingHandlers({ engine, cursors }: TradingHandlerDeps): AsyncServiceImplementation<tradingv1.TradingServiceServer> {
  return {
    async placeOrder(req) {
      const order = { ...req, side: sideFromProto(req.side), type: orderTypeFromProto(req.type) };
      return { position: toProtoPosition(await placeOrder(engine, order)) };
    },
    async closePosition(req) {
      return { position: toProtoPosition(await closePosition(engine, req)) };
    },
    async breachAccount(req) {
      return { account: toProtoAccount(await breachAccount(engine, req)) };
    },
    async resetAccount(req) {
      return { account: toProtoAccount(await resetAccount(engine, req)) };
    },
    async createPayout(req) {
      return { payout: toProtoPayout(await createPayout(engine, req)) };
    },
    async listPayouts(req) {
      const page = await listPayouts(engine, cursors, req);
      return { payouts: page.items.map(toProtoPayout), nextPageToken: page.nextPageToken };
    },
    async listPositions(req) {
      const page = await listPositions(engine, cursors, { ...req, status: positionStatusFromProto(req.status) });
      return { positions: page.items.map(toProtoPosition), nextPageToken: page.nextPageToken };
    },
    async listTrades(req) {
      const page = await listTrades(engine, cursors, req);
      return { deals: page.items.map(toProtoDeal), nextPageToken: page.nextPageToken };
    },
    async listFlags(req) {
      const page = await listFlags(engine, cursors, req);
      return { flags: page.items.map(toProtoFlag), nextPageToken: page.nextPageToken };
    },
    async getAnalytics(req) {
      return { analytics: await getAnalytics(engine, req) };
    },
    async getEquityCurve(req) {
      const points = await getEquityCurve(engine, { ...req, from: req.from ?? null, to: req.to ?? null, maxPoints: req.maxPoints });
      return { points: points.map(toProtoEquityPoint) };
    },
    async getReport(req) {
      return { report: await getReport(engine, req) };
    },
    async getTerms(req) {
      return { terms: await getTerms(engine, req) };
    },
    async listInstruments() {
      return { instruments: INSTRUMENTS.map(toProtoInstrument) };
    },
    async publishQuote(req) {
      return { quote: toProtoQuote(await publishQuote(engine, req.quote)) };
    },
    streamQuotes: createStreamQuotesHandler(engine),
  };
}
