import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import type { AsyncServiceImplementation, CallOpts, ServiceClient } from '@propdesk/kit';

type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * kit's PromiseClient filters methods with `extends UnaryFn<never, never>`, which no generated
 * method satisfies under strictFunctionTypes (it maps to {}). Same shape, inferred per method.
 */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryFn<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryFn<infer Req, infer Res>
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

export function promised<C>(client: ServiceClient<C>): PromiseClient<C> {
  return client.call as unknown as PromiseClient<C>;
}

/** The generated server interfaces carry grpc-js's string index signature; drop it so handler maps type-check. */
type KnownKeys<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

export type Handlers<S> = AsyncServiceImplementation<KnownKeys<S>>;
