import { createServiceClient, type PromiseClient, type ServiceAddresses, type ServiceClient } from '@propdesk/kit';
import { accountsv1, authv1, tradingv1, webhooksv1 } from '@propdesk/proto';

export type { PromiseClient } from '@propdesk/kit';

export interface PanelClients {
  auth: PromiseClient<authv1.AuthServiceClient>;
  accounts: PromiseClient<accountsv1.AccountsServiceClient>;
  /** TradingService, served by the accounts process (same address). */
  trading: PromiseClient<tradingv1.TradingServiceClient>;
  webhooks: PromiseClient<webhooksv1.WebhooksServiceClient>;
  close(): void;
}

/** One client per service, created at boot; every call carries the configured deadline. */
export function createPanelClients(addresses: ServiceAddresses, deadlineMs: number): PanelClients {
  const auth: ServiceClient<authv1.AuthServiceClient> = createServiceClient(
    authv1.AuthServiceClient,
    authv1.AuthServiceService,
    addresses.auth,
    deadlineMs,
    addresses.tls,
  );
  const accounts: ServiceClient<accountsv1.AccountsServiceClient> = createServiceClient(
    accountsv1.AccountsServiceClient,
    accountsv1.AccountsServiceService,
    addresses.accounts,
    deadlineMs,
    addresses.tls,
  );
  const trading: ServiceClient<tradingv1.TradingServiceClient> = createServiceClient(
    tradingv1.TradingServiceClient,
    tradingv1.TradingServiceService,
    addresses.accounts,
    deadlineMs,
    addresses.tls,
  );
  const webhooks: ServiceClient<webhooksv1.WebhooksServiceClient> = createServiceClient(
    webhooksv1.WebhooksServiceClient,
    webhooksv1.WebhooksServiceService,
    addresses.webhooks,
    deadlineMs,
    addresses.tls,
  );
  return {
    auth: auth.call,
    accounts: accounts.call,
    trading: trading.call,
    webhooks: webhooks.call,
    close() {
      auth.close();
      accounts.close();
      trading.close();
      webhooks.close();
    },
  };
}
