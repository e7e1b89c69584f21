import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import { createServiceClient, type CallOpts, type ServiceAddresses, type ServiceClient } from '@propdesk/kit';
import { accountsv1, authv1 } from '@propdesk/proto';

type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * kit's PromiseClient filters methods with `extends UnaryFn<never, never>`, which no generated
 * method satisfies under strictFunctionTypes, so it maps to {}. Same shape, inferred per method.
 */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryFn<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryFn<infer Req, infer Res>
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

export interface PanelClients {
  auth: PromiseClient<authv1.AuthServiceClient>;
  accounts: PromiseClient<accountsv1.AccountsServiceClient>;
  close(): void;
}

/** One client per service, created at boot; every call carries the configured deadline. */
export function createPanelClients(addresses: ServiceAddresses, deadlineMs: number): PanelClients {
  const auth: ServiceClient<authv1.AuthServiceClient> = createServiceClient(
    authv1.AuthServiceClient,
    authv1.AuthServiceService,
    addresses.auth,
    deadlineMs,
  );
  const accounts: ServiceClient<accountsv1.AccountsServiceClient> = createServiceClient(
    accountsv1.AccountsServiceClient,
    accountsv1.AccountsServiceService,
    addresses.accounts,
    deadlineMs,
  );
  return {
    auth: auth.call as unknown as PromiseClient<authv1.AuthServiceClient>,
    accounts: accounts.call as unknown as PromiseClient<accountsv1.AccountsServiceClient>,
    close() {
      auth.close();
      accounts.close();
    },
  };
}
