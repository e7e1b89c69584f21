import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { errorOfAnswer, PropDeskConnectionError, PropDeskError } from './errors';
import type { OperationSpec } from './__generated__/operations';

/** How the client is set up: `new PropDesk({ apiKey, baseUrl })`. */
export interface ClientOptions {
  /** pfx_live_... or pfx_test_...; sent as the bearer of every request, never logged or shown. */
  apiKey: string;
  /** Where the gateway answers, e.g. https://api.example.com (no /v1). */
  baseUrl: string;
  /** Retries of one request after a 429, a 503 or a connection failure [3]. */
  maxRetries?: number;
  /** The first backoff in milliseconds, doubled each retry (with jitter) up to 8 s [500]. */
  retryBaseDelayMs?: number;
  /** The longest Retry-After honoured, in seconds; a longer wait is the caller's decision [60]. */
  maxRetryAfterSeconds?: number;
  /** Each attempt's timeout in milliseconds [30000]. */
  timeoutMs?: number;
  /** Told of every answer the API gives (each attempt), e.g. to log or check it; never of the key. */
  onResponse?: (answer: AnswerInfo) => void;
}

/** Per call: the last argument of every method. */
export interface RequestOptions {
  /** The write's Idempotency-Key; by default a new UUID per call, the same for each of its retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Another bearer than the API key: an executor session's token for the /v1/executor routes. */
  token?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

/** One answer of the API, as onResponse sees it. */
export interface AnswerInfo {
  operationId: string;
  method: string;
  /** The operation's path template, e.g. /v1/accounts/{number}. */
  template: string;
  url: string;
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when the answer had none). */
  body: unknown;
  requestId: string | null;
  /** 0 for the first attempt, then 1, 2, ... for retries. */
  attempt: number;
}

export interface Call {
  operationId: string;
  spec: OperationSpec;
  pathValues: readonly unknown[];
  params: Record<string, unknown> | undefined;
  options: RequestOptions | undefined;
}

const MAX_BACKOFF_MS = 8_000;
const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

/** Errors of a connection that never opened: the request was not sent, so any request may be tried again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 4) return;
    const { code, cause, errors } = value as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.push(code);
    visit(cause, depth + 1);
    if (Array.isArray(errors)) errors.forEach((e) => visit(e, depth + 1));
  };
  visit(err, 0);
  return codes;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/**
 * The HTTP side of the client: one request of one operation with its retries. Retried, at most
 * `maxRetries` times with backoff: a 429 (after its Retry-After; the request was refused before it
 * ran), a 503 and a connection failure — but a write without an Idempotency-Key only when it cannot
 * have run (a 429, or a connection that never opened), since retrying it might run it twice. A
 * write with one sends the same key on every attempt, so the API runs it once.
 */
export class Transport {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #options: ClientOptions;

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0) throw new TypeError('PropDesk: apiKey is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) throw new TypeError('PropDesk: baseUrl must be an http(s) URL');
    this.#apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = { ...options, apiKey: '' };
  }

  /** The key's mode, from its prefix (pfx_test_ is test mode). */
  get livemode(): boolean {
    return !this.#apiKey.startsWith('pfx_test_');
  }

  url(call: Pick<Call, 'spec' | 'pathValues' | 'params'>): string {
    let i = 0;
    const filled = call.spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = call.pathValues[i++];
      if (value === undefined || value === null || value === '') throw new TypeError(`PropDesk: ${name} is required`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const name of call.spec.query) {
      const value = call.params?.[name];
      if (value !== undefined && value !== null) search.set(name, String(value));
    }
    const query = search.toString();
    return `${this.#baseUrl}${filled}${query ? `?${query}` : ''}`;
  }

  /** The JSON body: every parameter that is not one of the query's. */
  private body(call: Call): string | undefined {
    if (call.spec.body === 'none') return undefined;
    const fields = Object.fromEntries(Object.entries(call.params ?? {}).filter(([name, value]) => !call.spec.query.includes(name) && value !== undefined));
    return JSON.stringify(fields);
  }

  private headers(call: Call, idempotencyKey: string | undefined, body: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `propdesk-sdk/${VERSION} node/${process.versions.node}` };
    const token = call.options?.token ?? (call.spec.auth === 'apiKey' || call.spec.auth === 'none' ? this.#apiKey : undefined);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return headers;
  }

  private backoff(attempt: number): number {
    const base = this.#options.retryBaseDelayMs ?? 500;
    const ceiling = Math.min(base * 2 ** attempt, MAX_BACKOFF_MS);
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  async request(call: Call): Promise<unknown> {
    const { spec, options } = call;
    const url = this.url(call);
    const body = this.body(call);
    const idempotencyKey = spec.idempotencyKey ? (options?.idempotencyKey ?? randomUUID()) : undefined;
    const headers = this.headers(call, idempotencyKey, body);
    // A read, or a write carrying its Idempotency-Key, runs once however often it is sent.
    const repeatable = spec.method === 'GET' || idempotencyKey !== undefined;
    const maxRetries = options?.maxRetries ?? this.#options.maxRetries ?? 3;
    const timeoutMs = options?.timeoutMs ?? this.#options.timeoutMs ?? 30_000;

    for (let attempt = 0; ; attempt += 1) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await fetch(url, { method: spec.method, headers, body, signal });
      } catch (err) {
        if (options?.signal?.aborted) throw options.signal.reason;
        const timedOut = timeout.aborted;
        const notSent = !timedOut && codesOf(err).some((code) => NOT_SENT.has(code));
        if ((notSent || repeatable) && attempt < maxRetries) {
          await sleep(this.backoff(attempt), options?.signal);
          continue;
        }
        const what = timedOut ? `no answer within ${timeoutMs} ms` : `the connection failed (${codesOf(err).join(', ') || 'unknown'})`;
        throw new PropDeskConnectionError(`${spec.method} ${spec.path}: ${what}`, err, timedOut ? 'timeout' : 'connection_failed');
      }
      const text = await response.text();
      const parsed = text.length > 0 && (response.headers.get('content-type') ?? '').includes('json') ? safeParse(text) : undefined;
      const requestId = response.headers.get('x-request-id');
      this.#options.onResponse?.({ operationId: call.operationId, method: spec.method, template: spec.path, url, status: response.status, headers: response.headers, body: parsed, requestId, attempt });
      if (response.ok) return parsed;

      const retryAfter = retryAfterSeconds(response.headers);
      const error = errorOfAnswer(response.status, parsed, requestId, retryAfter);
      const retryable = response.status === 429 || (response.status === 503 && repeatable);
      if (!retryable || attempt >= maxRetries) throw error;
      if (response.status === 429 && retryAfter !== undefined && retryAfter > (this.#options.maxRetryAfterSeconds ?? 60)) throw error;
      await sleep(retryAfter !== undefined ? retryAfter * 1000 : this.backoff(attempt), options?.signal);
    }
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export { PropDeskError };
