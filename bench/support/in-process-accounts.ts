/**
 * The accounts service started in the bench's own process from its compiled dist, on a fresh
 * database dropped afterwards, with a quote publisher (TradingService.PublishQuote, unary) and a
 * PostgreSQL client to seed and read its schema: the programs and time-rules benches.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { createServiceClient } from '@propdesk/kit';
import { createTestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { ROOT } from './stack';

interface StartedService {
  address: string;
  stop(): Promise<void>;
}

type Unary<Req, Res> = (req: Req, cb: (err: Error | null, res: Res) => void) => void;

function call<Req, Res>(fn: Unary<Req, Res>, client: object, req: Req): Promise<Res> {
  return new Promise((resolve, reject) => fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));
}

export type Publish = (symbol: string, bid: number, ask: number) => Promise<unknown>;

export async function withAccountsService<T>(database: string, work: (publish: Publish, pg: Client) => Promise<T>): Promise<T> {
  const db = await createTestDatabase(database);
  const main = require(path.join(ROOT, 'services/accounts/dist/main.js')) as { start(env: NodeJS.ProcessEnv): Promise<StartedService> };
  const service = await main.start({
    DATABASE_URL: db.url,
    ACCOUNTS_GRPC_PORT: '0',
    AUTH_GRPC_ADDRESS: '127.0.0.1:1',
    CURSOR_SECRET: randomBytes(16).toString('hex'),
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
  });
  const client = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 60_000);
  const raw = client.raw;
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  const publish: Publish = (symbol, bid, ask) =>
    call(raw.publishQuote as unknown as Unary<tradingv1.PublishQuoteRequest, tradingv1.PublishQuoteResponse>, raw, { quote: { symbol, bid, ask } });
  try {
    return await work(publish, pg);
  } finally {
    await pg.end();
    client.close();
    await service.stop();
    await db.drop();
  }
}
