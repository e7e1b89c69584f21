import { authv1, accountsv1, webhooksv1 } from '@propdesk/proto';
import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import { createHealthChecker, createServiceClient, type CallOpts, type ServiceAddresses, type ServiceClient as KitServiceClient } from '@propdesk/kit';

type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * kit's PromiseClient filters methods with `extends UnaryFn<never, never>`, which no generated
 * (overloaded) method satisfies under strictFunctionTypes, so it maps to {}. Same runtime object,
 * typed per method here.
 */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryFn<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryFn<infer Req, infer Res>
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

export interface ServiceClient<C> {
  raw: C;
  call: PromiseClient<C>;
  close(): void;
}

function typed<C>(client: KitServiceClient<C>): ServiceClient<C> {
  return { raw: client.raw, call: client.call as unknown as PromiseClient<C>, close: () => client.close() };
}

export interface Clients {
  auth: ServiceClient<authv1.AuthServiceClient>;
  accounts: ServiceClient<accountsv1.AccountsServiceClient>;
  webhooks: ServiceClient<webhooksv1.WebhooksServiceClient>;
  close(): void;
}

/** One client per service per process, created at boot; every call carries the configured deadline. */
export function createClients(addresses: ServiceAddresses, deadlineMs: number): Clients {
  const auth = typed(createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, addresses.auth, deadlineMs));
  const accounts = typed(createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, addresses.accounts, deadlineMs));
  const webhooks = typed(createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, addresses.webhooks, deadlineMs));
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
