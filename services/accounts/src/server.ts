import { implementService, startGrpcServer, type StartedGrpcServer } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { AccountsDeps } from './deps';
import { createCoreHandlers } from './grpc/handlers';
import { ActiveStreams } from './grpc/stream-events-handler';
import { createTradingHandlers } from './grpc/trading-handlers';

export interface AccountsServer extends StartedGrpcServer {
  /** Ends open StreamEvents calls (they would otherwise hold the drain until its deadline). */
  closeStreams(): void;
}

export async function createServer(deps: AccountsDeps, options: { host: string; port: number }): Promise<AccountsServer> {
  const streams = new ActiveStreams();
  const handlers = { ...createCoreHandlers(deps, streams), ...createTradingHandlers(deps) };
  const implementation = implementService<accountsv1.AccountsServiceServer>(accountsv1.AccountsServiceService, deps.logger, handlers);
  const started = await startGrpcServer({
    host: options.host,
    port: options.port,
    logger: deps.logger,
    services: [{ name: 'propdesk.accounts.v1.AccountsService', definition: accountsv1.AccountsServiceService, implementation }],
  });
  return { ...started, closeStreams: () => streams.closeAll() };
}
