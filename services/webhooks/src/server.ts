import { startGrpcServer, type GrpcTls, type Logger, type StartedGrpcServer } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';
import type { Registry } from 'prom-client';
import type { Deps } from './deps';
import { webhooksHandlers } from './grpc/webhooks-handlers';

export function createServer(
  deps: Deps,
  options: { host: string; port: number; logger: Logger; tls?: GrpcTls; plaintextHealthPort?: number; metrics?: Registry },
): Promise<StartedGrpcServer> {
  return startGrpcServer({
    host: options.host,
    port: options.port,
    logger: options.logger,
    tls: options.tls,
    plaintextHealthPort: options.plaintextHealthPort,
    metrics: options.metrics,
    services: [
      {
        name: 'propdesk.webhooks.v1.WebhooksService',
        definition: webhooksv1.WebhooksServiceService,
        implementation: webhooksHandlers(deps, options.logger),
      },
    ],
  });
}
