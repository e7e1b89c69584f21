import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError } from './errors';

export interface StartedHttpServer {
  server: Server;
  port: number;
  /** host:port a client can dial (a wildcard listen address becomes 127.0.0.1). */
  address: string;
  /** Stops accepting, lets requests in flight finish for up to drainMs, then cuts what is left. */
  close(): Promise<void>;
}

/**
 * How much of a request line and headers the server reads (Node's default is 16 KB). Large enough
 * that the application sees, and refuses with its own error, what is merely too long for it (a
 * 20 KB cursor is invalid_cursor); beyond it the parser refuses with headers_too_large.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** A complete HTTP/1.1 answer with the JSON error envelope, for what never reaches the application. */
function rawErrorResponse(error: AppError, extraHeaders: Record<string, string> = {}): string {
  const body = JSON.stringify(error.toJSON());
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extraHeaders,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus] ?? ''}\r\n${head}\r\n${body}`;
}

/**
 * Node's HTTP parser answers what it refuses on its own, with an empty body (431 for oversized
 * headers, 400 for a malformed request, 408 for a request that never completes). Every answer
 * is the error envelope instead (SPEC 6).
 */
function parserErrorOf(err: Error & { code?: string }): AppError | undefined {
  switch (err.code) {
    case 'ECONNRESET':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large', `the request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KB`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request was not received in time');
    default:
      return new AppError('invalid_request', 'the request is not valid HTTP/1.1');
  }
}

function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const error = parserErrorOf(err);
  // As Node's own handler: only when no answer on this connection has begun.
  const inFlight = (socket as Socket & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
  if (error !== undefined && socket.writable && !inFlight?._headerSent) socket.end(rawErrorResponse(error));
  else socket.destroy();
}

/**
 * An HTTP server listening on host:port (0 picks a free port). Keep-alive outlives common load
 * balancers' idle timeouts (60 s), so they never reuse a connection the server is closing.
 */
export async function startHttpServer(
  handler: RequestListener,
  options: {
    host: string;
    port: number;
    drainMs?: number;
    /** The classes of the server's requests and responses (an Express app's own: the gateway's express-messages.ts). */
    messages?: { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse };
  },
): Promise<StartedHttpServer> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, ...options.messages }, handler);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // CONNECT is never routed to the application (Node closes the socket without a listener).
  server.on('connect', (_req, socket: Duplex) => {
    socket.end(rawErrorResponse(new AppError('method_not_allowed', 'CONNECT is not allowed'), { Allow: 'GET, HEAD, POST, PUT, DELETE' }));
  });
  let closing: Promise<void> | undefined;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    server,
    port,
    address: `${host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // A keep-alive connection whose response finishes during the drain goes idle, not closed:
        // sweep those instead of waiting for the force (no cost per request while serving).
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const force = setTimeout(() => server.closeAllConnections(), options.drainMs ?? 5000);
        sweep.unref();
        force.unref();
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
