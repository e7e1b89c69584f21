/**
 * A tiny client of the panel's JSON API for the end-to-end suites: session cookie, JSON bodies,
 * and the answer's status and body. Goes through whatever base URL it is given (the gateway's
 * proxy in the suites, as a browser would).
 */
export interface PanelAnswer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; message: string; param?: string } };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function panelClient(base: string) {
  return async function call<T = Record<string, unknown>>(
    method: Method,
    path: string,
    options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<PanelAnswer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.cookie) headers.cookie = options.cookie;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as PanelAnswer<T>['body'] };
  };
}
