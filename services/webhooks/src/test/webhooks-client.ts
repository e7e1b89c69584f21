import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import { createServiceClient, type CallOpts } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';

type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * kit's PromiseClient filters methods with `extends UnaryFn<never, never>`, which no generated
 * method satisfies under strictFunctionTypes; the same shape, inferred per method.
 */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryFn<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryFn<infer Req, infer Res>
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

export interface WebhooksTestClient {
  call: PromiseClient<webhooksv1.WebhooksServiceClient>;
  close(): void;
}

export function createWebhooksClient(address: string): WebhooksTestClient {
  const client = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, address);
  return { call: client.call as unknown as PromiseClient<webhooksv1.WebhooksServiceClient>, close: () => client.close() };
}
