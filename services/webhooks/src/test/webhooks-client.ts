import { createServiceClient, type PromiseClient } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';

export type { PromiseClient } from '@propdesk/kit';

export interface WebhooksTestClient {
  call: PromiseClient<webhooksv1.WebhooksServiceClient>;
  close(): void;
}

export function createWebhooksClient(address: string): WebhooksTestClient {
  const client = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, address);
  return { call: client.call, close: () => client.close() };
}
