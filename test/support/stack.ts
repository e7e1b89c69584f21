/**
 * The end-to-end harness: a whole PropDesk stack in this process, on free ports, against a fresh
 * database. Used by every suite under test/ (webhooks, limits, cli included), so keep it stable.
 *
 *   const stack = await startStack();              // beforeAll
 *   const org = await stack.createOrg();            // paid, 1000 credits
 *   const key = await stack.createKey(org.id, ['accounts:read']);
 *   const testKey = await stack.createKey(org.id, undefined, 'sandbox', { mode: 'test' }); // pfx_test_
 *   await fetch(`${stack.url}/v1/accounts`, { headers: { authorization: `Bearer ${key.token}` } });
 *   await stack.stop();                              // afterAll: closes every handle, drops the database
 *
 * Options: `redisUrl` (shared rate limits; a unique key prefix per stack), `env` (extra or
 * overriding variables for every process, e.g. RATE_LIMIT_IP_PER_MIN), `logDestination`
 * (receives every log line of every service), `gatewayReplicas` (more gateway instances on the same
 * services: `stack.gateways`).
 */
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import { authv1 } from '@propdesk/proto';
import { createLogger, loadGrpcTls, modeOfName, type Logger, type ModeName, type RetentionScheduler } from '@propdesk/kit';
import { createTestDatabase, databaseUrlVia, startTcpProxy, within, type TcpProxy, type TestDatabase } from '@propdesk/kit/testing';
import { start as startAuth } from '../../services/auth/src/main';
import { start as startAccounts } from '../../services/accounts/src/main';
import { start as startWebhooks } from '../../services/webhooks/src/main';
import { start as startPanel } from '../../services/panel/src/main';
import { start as startGateway } from '../../gateway/src/main';
import { createClients, type Clients } from '../../gateway/src/clients';
import { gatewayLogger } from './gateway-logger';

export interface StartedPart {
  port: number;
  address: string;
  /** The service's retention scheduler (auth, accounts, webhooks): `runOnce()` runs a pass now. */
  retention?: RetentionScheduler;
  stop(): Promise<void>;
}

export interface StackOptions {
  redisUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Every log line of every in-process service is written here (newline-delimited JSON). */
  logDestination?: Writable;
  logLevel?: string;
  /** Gateway instances sharing the services (default 1); `url` is the first. */
  gatewayReplicas?: number;
  /**
   * Every service reaches PostgreSQL through a TCP proxy the test controls (`stack.databaseProxy
   * .down()` / `.up()`); `database.url` stays direct, for looking behind the API.
   */
  databaseProxy?: boolean;
  /** Run on this database (e.g. a restored dump) instead of a fresh one; stop() drops it. */
  database?: TestDatabase;
}

export interface Organization {
  id: string;
  name: string;
}

export interface CreatedKey {
  id: string;
  token: string;
  prefix: string;
  scopes: string[];
}

export const ALL_SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write'];

export interface Stack {
  /** The first gateway's base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Every gateway's base URL (gatewayReplicas). */
  gateways: string[];
  /** The environment every process was started with (addresses included). */
  env: NodeJS.ProcessEnv;
  database: TestDatabase;
  /** With the `databaseProxy` option: the proxy every service's DATABASE_URL points at. */
  databaseProxy?: TcpProxy;
  services: { auth: StartedPart; accounts: StartedPart; webhooks: StartedPart; panel: StartedPart; gateway: StartedPart };
  gatewayParts: StartedPart[];
  /** Promise gRPC clients to every service, for set-up and for looking behind the API. */
  admin: Clients;
  createOrg(options?: { name?: string; paid?: boolean; credits?: number }): Promise<Organization>;
  /** A key with every scope unless given; live unless `mode: 'test'` (SPEC 13). */
  createKey(organizationId: string, scopes?: string[], name?: string, options?: { mode?: ModeName }): Promise<CreatedKey>;
  createUser(organizationId: string, options?: { email?: string; password?: string; role?: 'owner' | 'admin' | 'member' }): Promise<{ id: string; email: string; password: string }>;
  /** Logs in through the gateway's panel proxy and returns the Cookie header value. */
  panelLogin(email: string, password: string): Promise<string>;
  /** Provisions accounts directly over gRPC (live ones spend credits). Returns the account numbers. */
  createAccounts(organizationId: string, count: number, options?: { mode?: ModeName }): Promise<number[]>;
  /** Stops one service (e.g. to test 503); stop() still cleans up. */
  stopService(name: 'auth' | 'accounts' | 'webhooks' | 'panel'): Promise<void>;
  stop(): Promise<void>;
}

const ROLES = { owner: authv1.Role.ROLE_OWNER, admin: authv1.Role.ROLE_ADMIN, member: authv1.Role.ROLE_MEMBER };

const levelOf = (options: StackOptions) => options.logLevel ?? (options.logDestination ? 'debug' : 'warn');

function loggerFor(name: string, options: StackOptions): Logger {
  return createLogger(name, {
    level: levelOf(options),
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database = options.database ?? (await createTestDatabase('pd_e2e'));
  let databaseProxy: TcpProxy | undefined;
  if (options.databaseProxy) {
    const direct = new URL(database.url);
    databaseProxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
  }
  const started: Array<{ name: string; part: StartedPart }> = [];
  const stopped = new Set<string>();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: databaseProxy ? databaseUrlVia(database.url, databaseProxy.port) : database.url,
    GRPC_HOST: '127.0.0.1',
    AUTH_GRPC_PORT: '0',
    ACCOUNTS_GRPC_PORT: '0',
    WEBHOOKS_GRPC_PORT: '0',
    PANEL_PORT: '0',
    PORT: '0',
    // Headroom for a loaded machine (suites run in parallel, each with a whole stack in its
    // process): a read slower than 3 s there is contention, not a fault under test. Suites that
    // time answers against the deadline set their own (postgres-outage).
    GRPC_DEADLINE_MS: '10000',
    // Suites run in parallel against one PostgreSQL: small pools keep them under its max_connections.
    DATABASE_POOL_MAX: '6',
    CURSOR_SECRET: randomBytes(24).toString('hex'),
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    SIMULATE_MARKET: 'false',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: options.logLevel ?? 'warn',
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl, RATE_LIMIT_KEY_PREFIX: `pd_e2e_${randomBytes(6).toString('hex')}` } : {}),
    ...options.env,
  };

  const stopAll = async () => {
    for (const { name, part } of [...started].reverse()) {
      if (stopped.has(name)) continue;
      stopped.add(name);
      await part.stop().catch(() => undefined);
    }
  };

  let admin: Clients | undefined;
  try {
    const auth = await startAuth(env, { logger: loggerFor('auth', options) });
    started.push({ name: 'auth', part: auth });
    env.AUTH_GRPC_ADDRESS = auth.address;
    const accounts = await startAccounts(env, { logger: loggerFor('accounts', options) });
    started.push({ name: 'accounts', part: accounts });
    env.ACCOUNTS_GRPC_ADDRESS = accounts.address;
    const webhooks = await startWebhooks(env, { logger: loggerFor('webhooks', options) });
    started.push({ name: 'webhooks', part: webhooks });
    env.WEBHOOKS_GRPC_ADDRESS = webhooks.address;
    const panel = await startPanel(env, { logger: loggerFor('panel', options) });
    started.push({ name: 'panel', part: panel });
    env.PANEL_URL = `http://127.0.0.1:${panel.port}`;
    const gatewayParts: StartedPart[] = [];
    for (let i = 0; i < (options.gatewayReplicas ?? 1); i += 1) {
      const { logger, cacheEnabled } = gatewayLogger(levelOf(options), options.logDestination);
      const gateway = await startGateway(env, { logger });
      started.push({ name: i === 0 ? 'gateway' : `gateway-${i}`, part: gateway });
      gatewayParts.push(gateway);
      // Requests are served either way; from here on a valid key is cached as it would be in a
      // running stack, so what the suites measure does not depend on how fast the stream opened.
      await within(cacheEnabled, 10_000, 'the gateway\'s key cache fed by auth\'s invalidation stream');
    }
    admin = createClients({ auth: auth.address, accounts: accounts.address, webhooks: webhooks.address, tls: loadGrpcTls(env) }, 10_000);
    const clients = admin;
    const gateways = gatewayParts.map((g) => `http://127.0.0.1:${g.port}`);

    let stopping: Promise<void> | undefined;
    const stack: Stack = {
      url: gateways[0] as string,
      gateways,
      env,
      database,
      databaseProxy,
      services: { auth, accounts, webhooks, panel, gateway: gatewayParts[0] as StartedPart },
      gatewayParts,
      admin: clients,
      async createOrg(opts = {}) {
        const response = await clients.auth.call.createOrganization({
          name: opts.name ?? `Firm ${randomBytes(3).toString('hex')}`,
          planStatus: opts.paid === false ? authv1.PlanStatus.PLAN_STATUS_UNPAID : authv1.PlanStatus.PLAN_STATUS_PAID,
          credits: String(opts.credits ?? 1000),
        });
        const org = response.organization;
        if (!org) throw new Error('createOrganization answered without an organization');
        return { id: org.id, name: org.name };
      },
      async createKey(organizationId, scopes = ALL_SCOPES, name = 'e2e key', { mode = 'live' } = {}) {
        const response = await clients.auth.call.createApiKey({ organizationId, mode: modeOfName(mode), name, scopes });
        const key = response.apiKey;
        if (!key) throw new Error('createApiKey answered without a key');
        return { id: key.id, token: response.token, prefix: key.prefix, scopes: key.scopes };
      },
      async createUser(organizationId, opts = {}) {
        const email = opts.email ?? `user-${randomBytes(4).toString('hex')}@example.com`;
        const password = opts.password ?? `pw-${randomBytes(12).toString('hex')}`;
        const response = await clients.auth.call.createUser({ organizationId, email, password, role: ROLES[opts.role ?? 'owner'] });
        if (!response.user) throw new Error('createUser answered without a user');
        return { id: response.user.id, email, password };
      },
      async panelLogin(email, password) {
        const response = await fetch(`${gateways[0]}/panel/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        if (response.status !== 200) throw new Error(`panel login failed: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]);
        return cookies.join('; ');
      },
      async createAccounts(organizationId, count, { mode = 'live' } = {}) {
        const numbers: number[] = [];
        for (let left = count; left > 0; left -= 100) {
          const response = await clients.accounts.call.createAccounts({ organizationId, mode: modeOfName(mode), count: Math.min(100, left), program: '', initialBalance: 0 });
          numbers.push(...response.accounts.map((a) => Number(a.number)));
        }
        return numbers;
      },
      async stopService(name) {
        const entry = started.find((s) => s.name === name);
        if (!entry || stopped.has(name)) return;
        stopped.add(name);
        await entry.part.stop();
      },
      stop() {
        stopping ??= (async () => {
          await stopAll();
          clients.close();
          await databaseProxy?.close();
          await database.drop();
        })();
        return stopping;
      },
    };
    return stack;
  } catch (err) {
    admin?.close();
    await stopAll();
    await databaseProxy?.close();
    await database.drop().catch(() => undefined);
    throw err;
  }
}
