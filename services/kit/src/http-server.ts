import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StartedHttpServer {
  server: Server;
  port: number;
  /** host:port a client can dial (a wildcard listen address becomes 127.0.0.1). */
  address: string;
  /** Stops accepting, lets requests in flight finish for up to drainMs, then cuts what is left. */
  close(): Promise<void>;
}

/**
 * An HTTP server listening on host:port (0 picks a free port). Keep-alive outlives common load
 * balancers' idle timeouts (60 s), so they never reuse a connection the server is closing.
 */
export async function startHttpServer(
  handler: RequestListener,
  options: { host: string; port: number; drainMs?: number },
): Promise<StartedHttpServer> {
  const server = createServer(handler);
  server.keepAliveTimeout = 65_000;
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
