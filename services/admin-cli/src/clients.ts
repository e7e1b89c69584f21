import { createServiceClient, serviceAddresses, type PromiseClient, type ServiceClient } from '@propdesk/kit';
import { accountsv1, authv1, tradingv1 } from '@propdesk/proto';
import type { CliConfig } from './config';

export type { PromiseClient } from '@propdesk/kit';

function promised<C>(client: ServiceClient<C>): PromiseClient<C> {
  return client.call;
}

/** Clients are created on first use, so a command only connects to the service it needs. */
export interface Clients {
  auth(): PromiseClient<authv1.AuthServiceClient>;
  accounts(): PromiseClient<accountsv1.AccountsServiceClient>;
  /** TradingService, served by the accounts process (same address). */
  trading(): PromiseClient<tradingv1.TradingServiceClient>;
  /** The services a command has called so far, and where the CLI looks for each. */
  used(): Array<{ service: 'auth' | 'accounts'; address: string; variable: string }>;
  close(): void;
}

export function createClients(cfg: CliConfig): Clients {
  const addresses = serviceAddresses(cfg);
  let auth: ServiceClient<authv1.AuthServiceClient> | undefined;
  let accounts: ServiceClient<accountsv1.AccountsServiceClient> | undefined;
  let trading: ServiceClient<tradingv1.TradingServiceClient> | undefined;
  return {
    auth() {
      auth ??= createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, addresses.auth, cfg.GRPC_DEADLINE_MS, addresses.tls);
      return promised(auth);
    },
    accounts() {
      accounts ??= createServiceClient(
        accountsv1.AccountsServiceClient,
        accountsv1.AccountsServiceService,
        addresses.accounts,
        cfg.GRPC_DEADLINE_MS,
        addresses.tls,
      );
      return promised(accounts);
    },
    trading() {
      trading ??= createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, addresses.accounts, cfg.GRPC_DEADLINE_MS, addresses.tls);
      return promised(trading);
    },
    used() {
      return [
        ...(auth ? [{ service: 'auth' as const, address: addresses.auth, variable: 'AUTH_GRPC_ADDRESS' }] : []),
        ...(accounts || trading ? [{ service: 'accounts' as const, address: addresses.accounts, variable: 'ACCOUNTS_GRPC_ADDRESS' }] : []),
      ];
    },
    close() {
      auth?.close();
      accounts?.close();
      trading?.close();
    },
  };
}
