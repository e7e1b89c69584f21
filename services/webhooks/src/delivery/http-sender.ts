import { lookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { isIpLiteral, isPublicAddress } from '../domain/address-policy';
import { signatureHeaders } from '../domain/signature';

export const USER_AGENT = 'PropDesk-Webhooks/1';
const ERROR_TEXT_MAX = 200;

export class DestinationRefusedError extends Error {
  readonly code = 'DESTINATION_REFUSED';
  constructor(host: string) {
    super(`destination ${host} resolves to a private, loopback or reserved address`);
  }
}

export interface SendResult {
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  retryAfter?: string;
}

export interface HttpSender {
  /** `secrets`: every secret that signs this attempt, newest first (see signatureHeaders). */
  send(input: { url: string; body: string; eventId: string; secrets: readonly string[]; signal?: AbortSignal }): Promise<SendResult>;
  close(): Promise<void>;
}

/** dns.lookup with `all: true`: every address of a name. */
export type ResolveAll = (
  host: string,
  options: { all: true; verbatim: boolean },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * SSRF guard at connect time: the name is resolved here, every address checked, and the socket is
 * opened to the checked address itself, so a DNS answer cannot change between check and connect.
 * TLS still verifies the certificate against the original host name (servername).
 */
export function guardedConnector(options: {
  allowPrivateNetworks: boolean;
  ca?: string[];
  timeoutMs: number;
  /** The resolver (tests give a name any address without touching DNS). */
  lookup?: ResolveAll;
}): buildConnector.connector {
  const base = buildConnector({ timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) });
  const resolve: ResolveAll = options.lookup ?? ((host, opts, callback) => lookup(host, opts, callback));
  return (opts, callback) => {
    const host = stripBrackets(opts.hostname);
    if (isIpLiteral(host)) {
      if (!options.allowPrivateNetworks && !isPublicAddress(host)) return callback(new DestinationRefusedError(host), null);
      return base(opts, callback);
    }
    resolve(host, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, null);
      const usable = options.allowPrivateNetworks ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (usable.length === 0) return callback(new DestinationRefusedError(host), null);
      base({ ...opts, hostname: usable[0].address, servername: opts.servername || host }, callback);
    });
  };
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout after ${timeoutMs} ms`;
  }
  if (e.code === 'DESTINATION_REFUSED' || e.cause?.code === 'DESTINATION_REFUSED') return (e.code === 'DESTINATION_REFUSED' ? e.message : e.cause?.message) ?? 'destination refused';
  const code = e.code ?? e.cause?.code;
  const message = `${code ? `${code}: ` : ''}${e.message ?? String(err)}`;
  return message.slice(0, ERROR_TEXT_MAX);
}

export function createHttpSender(options: { allowPrivateNetworks: boolean; caFile?: string; timeoutMs: number }): HttpSender {
  const ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  const agent = new Agent({
    connect: guardedConnector({ allowPrivateNetworks: options.allowPrivateNetworks, ca, timeoutMs: options.timeoutMs }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
  });
  return {
    async send({ url, body, eventId, secrets, signal }) {
      const timestamp = Math.floor(Date.now() / 1000);
      const started = performance.now();
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        // undici's request() never follows redirects: a 3xx is an answer, and a failure.
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          signal: abort,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            ...signatureHeaders({ eventId, timestamp, body, secrets }),
          },
        });
        const retryAfter = res.headers['retry-after'];
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return {
          responseStatus: res.statusCode,
          error: ok ? null : `HTTP ${res.statusCode}`,
          durationMs: Math.round(performance.now() - started),
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        };
      } catch (err) {
        if (signal?.aborted) throw err;
        return { responseStatus: null, error: describeError(err, options.timeoutMs), durationMs: Math.round(performance.now() - started) };
      }
    },
    close: () => agent.close(),
  };
}
