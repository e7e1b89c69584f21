import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestCertificate } from './certificates';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver does for one request: answer, or hold the connection open forever. */
export type Behaviour = (req: ReceivedRequest) => { status: number; headers?: Record<string, string> } | 'hang';

export interface HttpsReceiver {
  port: number;
  url(path: string): string;
  requests: ReceivedRequest[];
  on(path: string, behaviour: Behaviour): void;
  /** Resolves once `count` requests have arrived on `path` (any path when omitted). */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedRequest[]>;
  received(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** An HTTPS server that records every request and answers as told per path (a webhook receiver). */
export async function startHttpsReceiver(cert: TestCertificate, host = '127.0.0.1'): Promise<HttpsReceiver> {
  const requests: ReceivedRequest[] = [];
  const behaviours = new Map<string, Behaviour>();
  const waiters: Array<() => void> = [];
  const hanging = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(received);
      for (const w of waiters.splice(0)) w();
      const behaviour: Behaviour = behaviours.get(received.path) ?? (() => ({ status: 200 }));
      const answer = behaviour(received);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end('ok');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const received = (path?: string) => (path === undefined ? requests : requests.filter((r) => r.path === path));
  return {
    port,
    url: (path) => `https://localhost:${port}${path}`,
    requests,
    on: (path, behaviour) => behaviours.set(path, behaviour),
    received: (path) => received(path),
    waitFor(count, path, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`timed out waiting for ${count} requests on ${path ?? 'any path'} (got ${received(path).length})`)), timeoutMs);
        const check = () => {
          if (received(path).length >= count) {
            clearTimeout(deadline);
            resolve(received(path));
          } else waiters.push(check);
        };
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
