import { randomBytes, randomUUID } from 'node:crypto';
import { createServiceClient, openDatabase, type PromiseClient, type Sequelize, type ServiceClient } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { start, SCHEMA, type StartedAccountsService } from '../main';
import { startAuthDouble, type AuthDouble } from './auth-double';

export interface Harness {
  db: TestDatabase;
  auth: AuthDouble;
  service: StartedAccountsService;
  client: ServiceClient<accountsv1.AccountsServiceClient>;
  api: PromiseClient<accountsv1.AccountsServiceClient>;
  /** TradingService, served by the same process. */
  tradingClient: ServiceClient<tradingv1.TradingServiceClient>;
  trading: PromiseClient<tradingv1.TradingServiceClient>;
  /** Direct access to the service's schema, to check what is stored. */
  sql: Sequelize;
  env: NodeJS.ProcessEnv;
  /** A fresh organization with this many credits at the auth double. */
  newOrg(credits?: number, lowThreshold?: number): string;
  close(): Promise<void>;
}

export async function startHarness(extraEnv: NodeJS.ProcessEnv = {}): Promise<Harness> {
  const db = await createTestDatabase('pd_accounts');
  const auth = await startAuthDouble();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    ACCOUNTS_GRPC_PORT: '0',
    AUTH_GRPC_ADDRESS: auth.address,
    CURSOR_SECRET: 'accounts-test-cursor-secret',
    // Suites run in parallel against one PostgreSQL: a small pool keeps them under its max_connections.
    DATABASE_POOL_MAX: '8',
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...extraEnv,
  };
  const service = await start(env);
  const client = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, service.address, 15_000);
  const tradingClient = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 15_000);
  const sql = openDatabase({ url: db.url, schema: SCHEMA, poolMax: 3 });
  return {
    db,
    auth,
    service,
    client,
    api: client.call,
    tradingClient,
    trading: tradingClient.call,
    sql,
    env,
    newOrg(credits = 1000, lowThreshold = 0) {
      const org = randomUUID();
      auth.setCredits(org, credits, lowThreshold);
      return org;
    },
    async close() {
      client.close();
      tradingClient.close();
      await service.stop();
      await sql.close();
      await auth.stop();
      await db.drop();
    },
  };
}
