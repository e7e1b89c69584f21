// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import { createLogger, loadConfig, ResourceStack, runMain, serviceAddresses, startHttpServer, startMetricsServer, type Logger, type StartedProcess } from '@propdesk/kit';
import { createApp } from './app';
import { createPanelClients } from './clients';
import { panelConfigSchema } from './config';

export interface StartedPanel extends StartedProcess {
  /** http://host:port, what the gateway proxies /panel and /api-keys to. */
  url: string;
}

/** Composition root: config, resources (the services' clients), server. The panel has no database. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedPanel> {
  const cfg = loadConfig(panelConfigSchema, env, false);
  const logger = options.logger ?? createLogger('panel', { level: cfg.LOG_LEVEL });
  const resources = new ResourceStack(logger);
  return resources.build(async () => {
    if (cfg.PANEL_METRICS_PORT !== undefined) {
      await resources.start('metrics', () => startMetricsServer({ host: cfg.PANEL_HOST ?? cfg.GRPC_HOST, port: cfg.PANEL_METRICS_PORT!, service: 'panel', logger }), (m) => m.close());
    }
    const clients = resources.add('service clients', createPanelClients(serviceAddresses(cfg), cfg.GRPC_DEADLINE_MS), (c) => c.close());
    const app = createApp({ clients, logger, trustProxy: cfg.PANEL_TRUST_PROXY });
    const http = await resources.start(
      'HTTP server',
      () => startHttpServer(app, { host: cfg.PANEL_HOST ?? cfg.GRPC_HOST, port: cfg.PANEL_PORT }),
      (s) => s.close(),
    );
    logger.info({ address: http.address }, 'panel listening');
    return { port: http.port, address: http.address, url: `http://${http.address}`, logger, stop: () => resources.stop() };
  });
}

if (require.main === module) runMain(start);
