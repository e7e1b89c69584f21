import type { AsyncServiceImplementation, PromiseClient, ServiceClient } from '@propdesk/kit';

export type { PromiseClient };

/** The unary methods of a client as promise functions (kit's ServiceClient.call). */
export function promised<C>(client: ServiceClient<C>): PromiseClient<C> {
  return client.call;
}

/** The async handlers of a generated service interface (kit's AsyncServiceImplementation). */
export type Handlers<S> = AsyncServiceImplementation<S>;
