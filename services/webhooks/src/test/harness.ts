import { randomUUID } from 'node:crypto';
import { createLogger } from '@propdesk/kit';
import { createTestDatabase, generateCertificate, type HttpsReceiver, startHttpsReceiver, type TestCertificate, type TestDatabase } from '@propdesk/kit/testing';
import { startFakeAccounts, type FakeAccounts } from './fake-accounts';
import { start, type StartedWebhooks } from '../main';
import { createWebhooksClient, type WebhooksTestClient } from './webhooks-client';

export const WEBHOOK_SECRET_KEY = 'a'.repeat(64);
export const CURSOR_SECRET = 'webhooks-test-cursor-secret';

export interface Harness {
  db: TestDatabase;
  cert: TestCertificate;
  receiver: HttpsReceiver;
  accounts: FakeAccounts;
  service: StartedWebhooks;
  client: WebhooksTestClient;
  env: NodeJS.ProcessEnv;
  org(): string;
  /** Points the harness (client and teardown) at another running instance. */
  replaceService(service: StartedWebhooks): void;
  teardown(): Promise<void>;
}

/** Real PostgreSQL, the real service on port 0, an HTTPS receiver and an accounts event-stream double. */
export async function startHarness(extraEnv: NodeJS.ProcessEnv = {}): Promise<Harness> {
  const db = await createTestDatabase('pd_webhooks');
  const cert = generateCertificate();
  const receiver = await startHttpsReceiver(cert);
  const accounts = await startFakeAccounts();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    WEBHOOKS_GRPC_PORT: '0',
    ACCOUNTS_GRPC_ADDRESS: accounts.address,
    CURSOR_SECRET,
    // Suites run in parallel against one PostgreSQL: a small pool keeps them under its max_connections.
    DATABASE_POOL_MAX: '8',
    WEBHOOK_SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_CA_FILE: cert.certFile,
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_POLL_INTERVAL_MS: '200',
    ...extraEnv,
  };
  const service = await start(env, { logger: createLogger('webhooks-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const client = createWebhooksClient(service.address);
  const harness: Harness = {
    db,
    cert,
    receiver,
    accounts,
    service,
    client,
    env,
    org: () => randomUUID(),
    replaceService(next) {
      harness.client.close();
      harness.service = next;
      harness.client = createWebhooksClient(next.address);
    },
    async teardown() {
      harness.client.close();
      await harness.service.stop();
      await accounts.stop();
      await receiver.close();
      cert.remove();
      await db.drop();
    },
  };
  return harness;
}
