/**
 * A client as a careful integrator writes one: every write carries an Idempotency-Key and is
 * retried with the same key on a 5xx, a 429 or a connection error, against the next gateway address in
 * turn (a load balancer's behaviour), until it gets an answer that is not "try again".
 */
import { authv1 } from '@propdesk/proto';
import { createServiceClient, Mode, type ServiceClient } from '@propdesk/kit';

export interface Answer<T = unknown> {
  status: number;
  text: string;
  body: T;
  /** Attempts it took (1 = answered first time). */
  attempts: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RetryingClient {
  private next = 0;
  /** Every 5xx and connection error seen, for the report. */
  readonly retried = { serverErrors: 0, connectionErrors: 0 };

  constructor(
    private readonly gateways: string[],
    private readonly token: string,
    private readonly giveUpMs = 120_000,
  ) {}

  private base(): string {
    const url = this.gateways[this.next % this.gateways.length] as string;
    this.next += 1;
    return url;
  }

  /** One request, retried on 5xx and connection errors (with the same Idempotency-Key when given). */
  async send<T = unknown>(method: string, path: string, options: { body?: unknown; key?: string } = {}): Promise<Answer<T>> {
    const giveUpAt = Date.now() + this.giveUpMs;
    for (let attempts = 1; ; attempts += 1) {
      const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
      if (options.key !== undefined) headers['idempotency-key'] = options.key;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      try {
        const res = await fetch(`${this.base()}${path}`, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        if (res.status < 500 && res.status !== 429) return { status: res.status, text, body: (text === '' ? undefined : JSON.parse(text)) as T, attempts };
        this.retried.serverErrors += 1;
      } catch {
        this.retried.connectionErrors += 1;
      }
      if (Date.now() > giveUpAt) throw new Error(`${method} ${path} got no answer within ${this.giveUpMs} ms`);
      await sleep(100 + Math.random() * 200);
    }
  }

  get<T = unknown>(path: string): Promise<Answer<T>> {
    return this.send<T>('GET', path);
  }

  /** Every item of a list, following next_cursor. */
  async all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page: Answer<{ data: T[]; next_cursor: string | null }> = await this.get(`${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${page.text}`);
      items.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    return items;
  }
}

export interface Tenant {
  orgId: string;
  token: string;
  auth: ServiceClient<authv1.AuthServiceClient>;
}

/** An organization with credits and an API key with every scope, made over the auth service's gRPC. */
export async function createTenant(authAddress: string, credits: number): Promise<Tenant> {
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, authAddress, 10_000);
  const org = (
    await auth.call.createOrganization({ name: `Faults ${Date.now()}`, planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: String(credits) })
  ).organization;
  if (!org) throw new Error('no organization');
  const key = await auth.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'faults', scopes: ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write'] });
  return { orgId: org.id, token: key.token, auth };
}

export async function creditsLeft(tenant: Tenant): Promise<number> {
  const org = (await tenant.auth.call.getOrganization({ organizationId: tenant.orgId })).organization;
  return Number(org?.credits ?? NaN);
}

export interface FeedEvent {
  id: string;
  type: string;
  data: { account?: number; trader_id?: string | null; position_id?: string; id?: string };
}

/** Values seen more than once, with their counts: the duplicates a check must not find. */
export function duplicates<T>(values: T[]): Array<[T, number]> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].filter(([, n]) => n > 1);
}
