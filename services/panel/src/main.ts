import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { createLogger, loadConfig, onShutdownSignals, serviceAddresses, type Logger } from '@propdesk/kit';
import { createApp } from './app';
import { createPanelClients } from './clients';
import { panelConfigSchema } from './config';

export interface StartedPanel {
  port: number;
  /** host:port */
  address: string;
  /** http://host:port, what the gateway proxies /panel and /api-keys to. */
  url: string;
  stop(): Promise<void>;
}

/** Requests in flight get this long to finish on stop; then their connections are cut. */
const DRAIN_MS = 5000;

export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedPanel> {
  const cfg = loadConfig(panelConfigSchema, env, false);
  const logger = options.logger ?? createLogger('panel', { level: cfg.LOG_LEVEL });
  const clients = createPanelClients(serviceAddresses(cfg), cfg.GRPC_DEADLINE_MS);
  const app = createApp({ clients, logger, trustProxy: cfg.PANEL_TRUST_PROXY });

  const host = cfg.PANEL_HOST ?? cfg.GRPC_HOST;
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(cfg.PANEL_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    clients.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  // A wildcard listen address is not something a client can dial.
  const address = `${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  logger.info({ address }, 'panel listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await closed;
      clearTimeout(force);
      clients.close();
    })());

  return { port, address, url: `http://${address}`, stop };
}

if (require.main === module) {
  const logger = createLogger('panel');
  start(process.env)
    .then((s) => onShutdownSignals(logger, [() => s.stop()]))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
