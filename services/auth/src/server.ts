import { implementService, loadGrpcTls, startGrpcServer, type StartedGrpcServer } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import type { Registry } from 'prom-client';
import type { AuthDeps } from './deps';
import { authHandlers } from './grpc/handlers';

export function createServer(deps: AuthDeps, listen: { host: string; port: number; metrics?: Registry }): Promise<StartedGrpcServer> {
  const implementation = implementService<authv1.AuthServiceServer>(authv1.AuthServiceService, deps.logger, authHandlers(deps));
  return startGrpcServer({
    host: listen.host,
    port: listen.port,
    logger: deps.logger,
    tls: loadGrpcTls(deps.config),
    plaintextHealthPort: deps.config.GRPC_TLS_HEALTH_PORT,
    metrics: listen.metrics,
    services: [{ name: 'propdesk.auth.v1.AuthService', definition: authv1.AuthServiceService, implementation }],
  });
}
