import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { authv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { start as startGateway } from '../../gateway/src/main';
import { createPanelClients } from '../../services/panel/src/clients';
import { quietLogger, startServices, type TestServices } from '../panel/services';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
  ms: number;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  from?: string;
}

export interface RunningGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * The real auth and accounts services with any number of real gateways in front, each its own
 * start(env) as a replica would be, plus a paid organization to make keys in.
 */
export interface LimitsStack {
  services: TestServices;
  startGateway(env: Record<string, string>): Promise<RunningGateway>;
  createKey(scopes?: string[]): Promise<string>;
  /** `from` picks the client's source address (any 127.x.y.z), i.e. which per-IP bucket it lands in. */
  call(gateway: RunningGateway, method: string, path: string, options?: CallOptions): Promise<Answer>;
  stop(): Promise<void>;
}

export async function startLimitsStack(): Promise<LimitsStack> {
  const services = await startServices();
  const clients = createPanelClients(
    { auth: services.clientEnv.AUTH_GRPC_ADDRESS, accounts: services.clientEnv.ACCOUNTS_GRPC_ADDRESS, webhooks: '127.0.0.1:1' },
    5_000,
  );
  const agents = new Map<string, Agent>();
  const agentFrom = (localAddress: string): Agent => {
    let agent = agents.get(localAddress);
    if (!agent) {
      agent = new Agent({ connections: 16, localAddress });
      agents.set(localAddress, agent);
    }
    return agent;
  };
  const gateways: RunningGateway[] = [];
  const org = await clients.auth.createOrganization({
    name: 'Limits e2e',
    planStatus: authv1.PlanStatus.PLAN_STATUS_PAID,
    credits: '100',
  });
  const organizationId = org.organization?.id ?? '';

  return {
    services,
    async startGateway(env) {
      const started = await startGateway(
        {
          ...services.clientEnv,
          WEBHOOKS_GRPC_ADDRESS: '127.0.0.1:1',
          PORT: '0',
          PANEL_PORT: '1',
          CURSOR_SECRET: randomBytes(24).toString('hex'),
          ...env,
        },
        { logger: quietLogger('gateway') },
      );
      const gateway = { url: started.address, stop: () => started.stop() };
      gateways.push(gateway);
      return gateway;
    },
    async createKey(scopes = ['accounts:read', 'accounts:write']) {
      const created = await clients.auth.createApiKey({ organizationId, mode: Mode.MODE_LIVE, name: `key ${randomBytes(3).toString('hex')}`, scopes });
      return created.token;
    },
    async call(gateway, method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.body);
      }
      const started = performance.now();
      const res = await request(`${gateway.url}${path}`, { method: method as 'GET', headers, body, dispatcher: agentFrom(options.from ?? '127.0.0.1') });
      const text = await res.body.text();
      return {
        status: res.statusCode,
        headers: res.headers,
        body: text ? (JSON.parse(text) as Answer['body']) : {},
        ms: performance.now() - started,
      };
    },
    async stop() {
      for (const gateway of gateways) await gateway.stop();
      for (const agent of agents.values()) await agent.close();
      clients.close();
      await services.stop();
    },
  };
}
