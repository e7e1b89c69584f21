/**
 * A small HTTP client for e2e tests: every answer is parsed, and checked against the OpenAPI
 * document when a path template is given (`api.get('/v1/accounts/{number}', '/v1/accounts/7')`).
 */
import { expectDocumented } from './openapi-check';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** The exact bytes of the body, as text. */
  text: string;
  body: T;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** A JS value (sent as JSON) or a raw string (sent as is). */
  body?: unknown;
  /** The OpenAPI path template to check the answer against; omit for undocumented routes. */
  template?: string;
}

export async function request<T = unknown>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text.length > 0 && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  if (options.template !== undefined) expectDocumented(method, options.template, response.status, parsed);
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/** Bound to one base URL and (optionally) one bearer token. */
export function client(baseUrl: string, token?: string) {
  const call = <T = unknown>(method: string, template: string, path = template, options: Omit<RequestOptions, 'template'> = {}) =>
    request<T>(baseUrl, method, path, { token, ...options, template });
  return {
    get: <T = unknown>(template: string, path?: string, options?: Omit<RequestOptions, 'template'>) => call<T>('GET', template, path, options),
    post: <T = unknown>(template: string, path?: string, options?: Omit<RequestOptions, 'template'>) => call<T>('POST', template, path, options),
    put: <T = unknown>(template: string, path?: string, options?: Omit<RequestOptions, 'template'>) => call<T>('PUT', template, path, options),
    patch: <T = unknown>(template: string, path?: string, options?: Omit<RequestOptions, 'template'>) => call<T>('PATCH', template, path, options),
    delete: <T = unknown>(template: string, path?: string, options?: Omit<RequestOptions, 'template'>) => call<T>('DELETE', template, path, options),
  };
}

export interface ErrorBody {
  error: { code: string; message: string; param?: string };
}
