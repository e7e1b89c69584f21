import type { AsyncServiceImplementation, PromiseClient, ServiceClient } from '@propdesk/kit';

export type { PromiseClient };

/** The unary methods of a client as promise functions (kit's ServiceClient.call). */
export function promised<C>(client: ServiceClient<C>): PromiseClient<C> {
  return client.call;
}

/** Part of a service's async handlers; server.ts checks the merged object against every RPC. */
export type Handlers<S> = Partial<AsyncServiceImplementation<S>>;
