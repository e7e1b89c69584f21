import { authv1, accountsv1, webhooksv1 } from '@propdesk/proto';
import { createHealthChecker, createServiceClient, type ServiceAddresses, type ServiceClient } from '@propdesk/kit';

export type { ServiceClient };

export interface Clients {
  auth: ServiceClient<authv1.AuthServiceClient>;
  accounts: ServiceClient<accountsv1.AccountsServiceClient>;
  webhooks: ServiceClient<webhooksv1.WebhooksServiceClient>;
  close(): void;
}

/** One client per service per process, created at boot; every call carries the configured deadline. */
export function createClients(addresses: ServiceAddresses, deadlineMs: number): Clients {
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, addresses.auth, deadlineMs);
  const accounts = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, addresses.accounts, deadlineMs);
  const webhooks = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, addresses.webhooks, deadlineMs);
  return {
    auth,
    accounts,
    webhooks,
    close() {
      auth.close();
      accounts.close();
      webhooks.close();
    },
  };
}

export type ServiceName = 'auth' | 'accounts' | 'webhooks';

export interface HealthCheckers {
  checkAll(deadlineMs: number): Promise<Record<ServiceName, boolean>>;
  close(): void;
}

export function createHealthCheckers(addresses: ServiceAddresses): HealthCheckers {
  const checkers = {
    auth: createHealthChecker(addresses.auth),
    accounts: createHealthChecker(addresses.accounts),
    webhooks: createHealthChecker(addresses.webhooks),
  };
  return {
    async checkAll(deadlineMs) {
      const [auth, accounts, webhooks] = await Promise.all([
        checkers.auth.check(deadlineMs),
        checkers.accounts.check(deadlineMs),
        checkers.webhooks.check(deadlineMs),
      ]);
      return { auth, accounts, webhooks };
    },
    close() {
      for (const checker of Object.values(checkers)) checker.close();
    },
  };
}
