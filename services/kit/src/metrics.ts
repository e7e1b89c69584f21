import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Sequelize } from 'sequelize';
import type { Logger } from './logger';

/**
 * A service's own Prometheus endpoint (`GET /metrics` on its metrics port, e.g. ACCOUNTS_METRICS_PORT):
 * prom-client's default process metrics, among them `process_resident_memory_bytes` and the
 * event-loop delay (`nodejs_eventloop_lag_p99_seconds`, over the interval since the last scrape).
 * The gateway serves the same on its own /metrics. Unset port: no endpoint.
 */
export interface MetricsServer {
  port: number;
  registry: Registry;
  close(): Promise<void>;
}

export async function startMetricsServer(options: { host: string; port: number; service: string; logger: Logger }): Promise<MetricsServer> {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        options.logger.warn({ err: (err as Error).message }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'metrics listening');
  return {
    port,
    registry,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `propdesk_database_up`: 1 when the service reached PostgreSQL at the scrape (`SELECT 1` within
 * `timeoutMs`), 0 otherwise: what the "database unavailable" alert watches, per service.
 */
export function watchDatabase(registry: Registry, sequelize: Sequelize, timeoutMs = 2000): void {
  new Gauge({
    name: 'propdesk_database_up',
    help: 'Whether this process reached PostgreSQL at the last scrape (1) or not (0)',
    registers: [registry],
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const reached = sequelize.query('SELECT 1').then(
        () => true,
        () => false,
      );
      const up = await Promise.race([reached, timedOut]);
      clearTimeout(timer);
      this.set(up ? 1 : 0);
    },
  });
}

/** Reads one sample's value from Prometheus text (first match of the name, any labels). */
export function metricValue(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  if (!line) return undefined;
  const value = Number(line.slice(line.lastIndexOf(' ') + 1));
  return Number.isFinite(value) ? value : undefined;
}
