import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { request } from '../support/http';
import { ALL_SCOPES, type Stack } from '../support/stack';

/** Every scope, payouts:write and audit:read included. */
export const AUDIT_SCOPES = [...ALL_SCOPES, 'payouts:write', 'audit:read'];

export interface AuditEntryJson {
  id: string;
  created_at: string;
  actor: { type: string; id: string; label: string };
  action: string;
  target: { type: string; id: string };
  request_id: string | null;
  ip: string | null;
  livemode: boolean;
  changes: Record<string, [unknown, unknown]>;
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; message: string; param?: string } };
  /** The X-Request-Id the gateway answered. */
  requestId: string;
}

/** A documented /v1 call (checked against the OpenAPI document) that also keeps the answer's X-Request-Id. */
export async function v1<T = Record<string, unknown>>(stack: Stack, token: string, method: string, template: string, urlPath = template, body?: unknown): Promise<Answer<T>> {
  const answer = await request<Answer<T>['body']>(stack.url, method, urlPath, { token, template, ...(body === undefined ? {} : { body }) });
  return { status: answer.status, body: answer.body, requestId: answer.headers.get('x-request-id') ?? '' };
}

/** A panel API call through the gateway's proxy, as a browser on the panel's pages makes it. */
export async function panel<T = Record<string, unknown>>(stack: Stack, cookie: string, method: string, urlPath: string, body?: unknown): Promise<Answer<T>> {
  const response = await fetch(`${stack.url}${urlPath}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Answer<T>['body'], requestId: response.headers.get('x-request-id') ?? '' };
}

/** Every entry the key sees, newest first, through every page of GET /v1/audit_events. */
export async function wholeLog(stack: Stack, token: string, query = '', limit = 200): Promise<AuditEntryJson[]> {
  const all: AuditEntryJson[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(query);
    params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const page: Answer<{ data: AuditEntryJson[]; next_cursor: string | null }> = await v1(stack, token, 'GET', '/v1/audit_events', `/v1/audit_events?${params}`);
    if (page.status !== 200) throw new Error(`GET /v1/audit_events answered ${page.status}: ${JSON.stringify(page.body)}`);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

/** The schemas of the services that own changes, each with its audit_entries. */
export const AUDITED_SCHEMAS = ['auth', 'accounts', 'webhooks'] as const;

/** Runs statements on the stack's database as the services connect (their role). */
export async function withDatabase<T>(stack: Stack, work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: stack.database.url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

const CLI_ENTRY = path.resolve(__dirname, '..', '..', 'services/admin-cli/dist/main.js');

/** The admin CLI (built by tsc -b) against the stack's services; its one JSON object. */
export function cli(stack: Stack, args: string[]): Promise<Record<string, unknown> & { error?: { code: string } }> {
  const env = {
    PATH: process.env.PATH ?? '',
    AUTH_GRPC_ADDRESS: stack.env.AUTH_GRPC_ADDRESS ?? '',
    ACCOUNTS_GRPC_ADDRESS: stack.env.ACCOUNTS_GRPC_ADDRESS ?? '',
    WEBHOOKS_GRPC_ADDRESS: stack.env.WEBHOOKS_GRPC_ADDRESS ?? '',
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_ENTRY, ...args], { env, timeout: 60_000 }, (err, stdout) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(err ?? new Error(`the CLI printed no JSON: ${stdout}`));
      }
    });
  });
}
