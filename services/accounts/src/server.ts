import { implementService, loadGrpcTls, startGrpcServer, type AsyncServiceImplementation, type StartedGrpcServer } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import type { Registry } from 'prom-client';
import type { AccountsDeps } from './deps';
import { createAccountsHandlers } from './grpc/handlers';
import { ActiveStreams } from './grpc/stream-events-handler';

export interface AccountsServer extends StartedGrpcServer {
  /** Ends open StreamEvents calls (they would otherwise hold the drain until its deadline). */
  closeStreams(): void;
}

/**
 * The accounts process's gRPC server: AccountsService, and TradingService with the handlers
 * main.ts built for the trading module (one process, so a breach and the account row change in
 * one database transaction).
 */
export async function createServer(
  deps: AccountsDeps,
  options: { host: string; port: number; trading: AsyncServiceImplementation<tradingv1.TradingServiceServer>; metrics?: Registry },
): Promise<AccountsServer> {
  const streams = new ActiveStreams();
  const accounts = implementService<accountsv1.AccountsServiceServer>(accountsv1.AccountsServiceService, deps.logger, createAccountsHandlers(deps, streams, options.metrics));
  const trading = implementService<tradingv1.TradingServiceServer>(tradingv1.TradingServiceService, deps.logger, options.trading);
  const started = await startGrpcServer({
    host: options.host,
    port: options.port,
    logger: deps.logger,
    tls: loadGrpcTls(deps.config),
    plaintextHealthPort: deps.config.GRPC_TLS_HEALTH_PORT,
    metrics: options.metrics,
    services: [
      { name: 'propdesk.accounts.v1.AccountsService', definition: accountsv1.AccountsServiceService, implementation: accounts },
      { name: 'propdesk.trading.v1.TradingService', definition: tradingv1.TradingServiceService, implementation: trading },
    ],
  });
  return { ...started, closeStreams: () => streams.closeAll() };
}
