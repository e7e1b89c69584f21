import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL, so a test can make the database vanish for the service
 * under test (every connection cut, new ones reset) without touching the shared server. The
 * listener stays open while "down": closing it would let a reconnecting client self-connect to
 * the freed ephemeral port and keep us from listening again.
 */
export interface TcpProxy {
  port: number;
  /** Cuts every connection and resets new ones. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let isDown = false;
  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (isDown) {
      client.resetAndDestroy();
      return;
    }
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const sock of sockets) sock.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
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
