import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import { createServiceClient, serviceAddresses, type CallOpts, type ServiceClient } from '@propdesk/kit';
import { accountsv1, authv1 } from '@propdesk/proto';
import type { CliConfig } from './config';

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

function promised<C>(client: ServiceClient<C>): PromiseClient<C> {
  return client.call as unknown as PromiseClient<C>;
}

/** Clients are created on first use, so a command only connects to the service it needs. */
export interface Clients {
  auth(): PromiseClient<authv1.AuthServiceClient>;
  accounts(): PromiseClient<accountsv1.AccountsServiceClient>;
  close(): void;
}

export function createClients(cfg: CliConfig): Clients {
  const addresses = serviceAddresses(cfg);
  let auth: ServiceClient<authv1.AuthServiceClient> | undefined;
  let accounts: ServiceClient<accountsv1.AccountsServiceClient> | undefined;
  return {
    auth() {
      auth ??= createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, addresses.auth, cfg.GRPC_DEADLINE_MS);
      return promised(auth);
    },
    accounts() {
      accounts ??= createServiceClient(
        accountsv1.AccountsServiceClient,
        accountsv1.AccountsServiceService,
        addresses.accounts,
        cfg.GRPC_DEADLINE_MS,
      );
      return promised(accounts);
    },
    close() {
      auth?.close();
      accounts?.close();
    },
  };
}
