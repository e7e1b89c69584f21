import type { Mode } from './mode';
import type {
  Adjustment,
  AccountDetail,
  AccountPage,
  Account,
  Analytics,
  ApiKey,
  AuditEntry,
  AuditFilter,
  Credentials,
  Deal,
  Delivery,
  DeliveryAccepted,
  EquityCurve,
  Flag,
  Meta,
  NewApiKey,
  Organization,
  Page,
  PanelEvent,
  Payout,
  PayoutStatus,
  Position,
  Program,
  Role,
  TeamUser,
  Terms,
  TimelineItem,
  User,
  Webhook,
  WebhookChanges,
  WebhookUpdated,
  WebhookWithSecret,
} from './types';
import { currentMode, MODE_HEADER } from './mode';

/**
 * The one module that knows the panel API (/panel/api, plus /api-keys of SPEC section 4): its
 * paths, its bodies, its error envelope {error: {code, message, param?}} (SPEC section 6), and
 * the mode every request is made in (mode.ts: the "Test mode" switch, SPEC 13).
 * Pages call these functions through TanStack Query and never build a URL themselves.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The field at fault (e.g. "phases[1].profit_target_pct"), for errors shown next to it. */
    readonly param?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | null | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function isEnvelope(body: unknown): body is { error: { code: string; message: string; param?: string } } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

async function request<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        [MODE_HEADER]: currentMode(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'unavailable', 'The panel cannot be reached. Check the connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    if (isEnvelope(parsed)) throw new ApiError(response.status, parsed.error.code, parsed.error.message, parsed.error.param);
    throw new ApiError(response.status, response.status >= 500 ? 'unavailable' : 'internal_error', `The panel answered ${response.status}.`);
  }
  return parsed as T;
}

const get = <T>(path: string, query?: Query) => request<T>('GET', withQuery(path, query));
const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
const del = <T>(path: string) => request<T>('DELETE', path);

const account = (n: number | string) => `/panel/api/accounts/${encodeURIComponent(String(n))}`;
const webhook = (id: string) => `/panel/api/webhooks/${encodeURIComponent(id)}`;

export interface AccountFilter {
  status?: string;
  q?: string;
}

export interface ProgramInput {
  name: string;
  description: string;
  initial_balance: number;
  phases: Program['phases'];
}

export const panelApi = {
  me: () => get<{ user: User }>('/panel/api/me'),
  meta: () => get<Meta>('/panel/api/meta'),
  organization: () => get<Organization>('/panel/api/organization'),
  login: (email: string, password: string) => post<{ user: User }>('/panel/api/login', { email, password }),
  logout: () => post<{ ok: true }>('/panel/api/logout'),

  accounts: {
    list: (filter: AccountFilter, cursor?: string) => get<AccountPage>('/panel/api/accounts', { ...filter, cursor }),
    create: (count: number, program?: string) => post<{ data: Account[] }>('/panel/api/accounts', { count, ...(program ? { program } : {}) }),
    get: (n: number) => get<AccountDetail>(account(n)),
    assign: (n: number, name: string, email: string) => put<AccountDetail>(`${account(n)}/trader`, { name, email }),
    unassign: (n: number) => del<AccountDetail>(`${account(n)}/trader`),
    archive: (n: number) => post<Account>(`${account(n)}/archive`),
    breach: (n: number, reason: string) => post<Account>(`${account(n)}/breach`, { reason }),
    reset: (n: number) => post<Account>(`${account(n)}/reset`),
    payout: (n: number, amount?: number) => post<Payout>(`${account(n)}/payouts`, amount === undefined ? {} : { amount }),
    payouts: (n: number, cursor?: string) => get<Page<Payout>>(`${account(n)}/payouts`, { cursor }),
    credentials: (n: number) => get<Credentials>(`${account(n)}/credentials`),
    positions: (n: number, status: 'open' | 'closed' | 'pending', cursor?: string) => get<Page<Position>>(`${account(n)}/positions`, { status, cursor }),
    trades: (n: number, cursor?: string) => get<Page<Deal>>(`${account(n)}/trades`, { cursor }),
    flags: (n: number, cursor?: string) => get<Page<Flag>>(`${account(n)}/flags`, { cursor }),
    analytics: (n: number) => get<Analytics>(`${account(n)}/analytics`),
    terms: (n: number) => get<Terms>(`${account(n)}/terms`),
    equity: (n: number, maxPoints: number) => get<EquityCurve>(`${account(n)}/equity`, { max_points: maxPoints }),
    timeline: (n: number, cursor?: string) => get<Page<TimelineItem>>(`${account(n)}/timeline`, { cursor }),
    // SPEC 14's operator controls (owners and admins).
    halt: (n: number, reason: string) => post<Account>(`${account(n)}/halt`, { reason }),
    resume: (n: number) => post<Account>(`${account(n)}/resume`),
    reinstate: (n: number, reason: string) => post<Account>(`${account(n)}/reinstate`, { reason }),
    adjust: (n: number, amount: number, reason: string) => post<Adjustment>(`${account(n)}/adjustments`, { amount, reason }),
  },

  /** SPEC 14: the organization's payouts; owners and admins approve and reject. */
  payouts: {
    list: (status: PayoutStatus | '', cursor?: string) => get<Page<Payout>>('/panel/api/payouts', { status, cursor }),
    approve: (id: string) => post<Payout>(`/panel/api/payouts/${encodeURIComponent(id)}/approve`),
    reject: (id: string, reason: string) => post<Payout>(`/panel/api/payouts/${encodeURIComponent(id)}/reject`, { reason }),
  },

  programs: {
    list: (cursor?: string) => get<Page<Program>>('/panel/api/programs', { cursor }),
    create: (program: ProgramInput) => post<Program>('/panel/api/programs', program),
    update: (name: string, program: ProgramInput) => put<Program>(`/panel/api/programs/${encodeURIComponent(name)}`, program),
    archive: (name: string) => post<Program>(`/panel/api/programs/${encodeURIComponent(name)}/archive`),
  },

  events: {
    list: (type: string, cursor?: string) => get<Page<PanelEvent>>('/panel/api/events', { type, cursor }),
  },

  webhooks: {
    list: (cursor?: string) => get<Page<Webhook>>('/panel/api/webhooks', { cursor }),
    get: (id: string) => get<Webhook>(webhook(id)),
    register: (url: string, events: string[], description: string | null) => post<WebhookWithSecret>('/panel/api/webhooks', { url, events, description }),
    /** SPEC 17: the fields given change, the others keep their values (null description: none). */
    update: (id: string, changes: WebhookChanges) => patch<WebhookUpdated>(webhook(id), changes),
    recover: (id: string, since: string) => post<{ redelivered: number }>(`${webhook(id)}/recover`, { since }),
    remove: (id: string) => del<{ id: string; deleted: true }>(webhook(id)),
    enable: (id: string) => post<Webhook>(`${webhook(id)}/enable`),
    rotateSecret: (id: string) => post<{ id: string; secret: string }>(`${webhook(id)}/rotate-secret`),
    deliveries: (id: string, cursor?: string) => get<Page<Delivery>>(`${webhook(id)}/deliveries`, { cursor }),
    sendTest: (id: string) => post<DeliveryAccepted>(`${webhook(id)}/test`),
    retry: (id: string, deliveryId: string) => post<DeliveryAccepted>(`${webhook(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`),
  },

  keys: {
    list: (cursor?: string) => get<Page<ApiKey>>('/panel/api/keys', { cursor }),
    create: (name: string, scopes: string[], mode: Mode, expiresIn?: number) =>
      post<NewApiKey>('/panel/api/keys', { name, scopes, mode, ...(expiresIn === undefined ? {} : { expires_in: expiresIn }) }),
    setLimits: (id: string, read: number | null, write: number | null) => post<ApiKey>(`/panel/api/keys/${encodeURIComponent(id)}/limits`, { read, write }),
    // SPEC sections 4 and 12: these two live outside /panel/api.
    roll: (id: string) => post<NewApiKey>(`/api-keys/${encodeURIComponent(id)}/roll`),
    revoke: (id: string) => post<ApiKey>(`/api-keys/${encodeURIComponent(id)}/revoke`),
  },

  audit: {
    list: (filter: AuditFilter, cursor?: string) => get<Page<AuditEntry>>('/panel/api/audit', { ...filter, cursor }),
  },

  team: {
    list: (cursor?: string) => get<Page<TeamUser>>('/panel/api/team', { cursor }),
    add: (email: string, password: string, role: Role) => post<TeamUser>('/panel/api/team', { email, password, role }),
    changeRole: (id: string, role: Role) => post<TeamUser>(`/panel/api/team/${encodeURIComponent(id)}/role`, { role }),
    remove: (id: string) => del<{ id: string; deleted: true }>(`/panel/api/team/${encodeURIComponent(id)}`),
  },
};

/**
 * Query keys, one place, so a mutation invalidates exactly what it changed. What belongs to a
 * partition (everything but the session, the meta data and the team) is keyed by the mode too.
 */
export const queryKeys = {
  me: ['me'] as const,
  meta: ['meta'] as const,
  organization: ['organization'] as const,
  accounts: (filter?: AccountFilter) => (filter ? ([currentMode(), 'accounts', filter] as const) : ([currentMode(), 'accounts'] as const)),
  account: (n: number) => [currentMode(), 'account', n] as const,
  payouts: (status?: string) => (status === undefined ? ([currentMode(), 'payouts'] as const) : ([currentMode(), 'payouts', status] as const)),
  programs: () => [currentMode(), 'programs'] as const,
  events: (type?: string) => (type === undefined ? ([currentMode(), 'events'] as const) : ([currentMode(), 'events', type] as const)),
  webhooks: () => [currentMode(), 'webhooks'] as const,
  webhook: (id: string) => [currentMode(), 'webhook', id] as const,
  keys: () => [currentMode(), 'keys'] as const,
  audit: (filter: AuditFilter) => [currentMode(), 'audit', filter] as const,
  team: ['team'] as const,
};

/** Managers (owners and admins) see management controls; the server decides anyway. */
export const canManage = (role: Role | undefined): boolean => role === 'owner' || role === 'admin';
