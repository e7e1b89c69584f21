import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, e.g. in front of PostgreSQL, so that the database can vanish for
 * the services under test (every connection cut, new ones reset) without touching the shared
 * server. The listener stays open while "down": closing it would let a reconnecting client
 * self-connect to the freed ephemeral port and keep us from listening again.
 */
export interface TcpProxy {
  port: number;
  /** Connections passed through since start (a test can check the services really use it). */
  readonly connections: number;
  /** Connections reset while down (a test can wait until a client has tried during an outage). */
  readonly refused: number;
  /** Cuts every connection and resets new ones. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let isDown = false;
  let connections = 0;
  let refused = 0;
  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (isDown) {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    connections += 1;
    const upstream = connect(targetPort, targetHost);
    for (const sock of [client, upstream]) {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', resolve);
  });
  const cutAll = () => {
    for (const sock of sockets) sock.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    get refused() {
      return refused;
    },
    down() {
      isDown = true;
      cutAll();
    },
    up() {
      isDown = false;
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same PostgreSQL URL, pointed at 127.0.0.1:`port` (a proxy in front of the server). */
export function databaseUrlVia(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}
