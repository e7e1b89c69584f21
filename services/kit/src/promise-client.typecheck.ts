import { createServiceClient, Mode } from './index';
import { webhooksv1, authv1 } from '@propdesk/proto';
const c = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, '127.0.0.1:1');
const p: Promise<webhooksv1.RetryDeliveryResponse> = c.call.retryDelivery({ organizationId: '', mode: Mode.MODE_LIVE, endpointId: '', deliveryId: '' });
const a = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, '127.0.0.1:1');
const q: Promise<authv1.VerifyApiKeyResponse> = a.call.verifyApiKey({ tokenSha256: '' });
// @ts-expect-error streaming methods are not in the promise client
a.call.watchInvalidations;
void p; void q;

import type { AsyncServiceImplementation } from './grpc-server';
// Handlers are plain async functions of the named RPCs; an unknown name is refused (a test
// double's partial set included).
const handlers: Partial<AsyncServiceImplementation<authv1.AuthServiceServer>> = {
  verifyApiKey: async (req: authv1.VerifyApiKeyRequest) => ({ apiKeyId: req.tokenSha256, organizationId: '', scopes: [], planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, mode: Mode.MODE_LIVE }),
  // @ts-expect-error not an RPC of AuthService
  notAnRpc: async () => ({}),
};
void handlers;

// Every RPC is required: a forgotten handler does not compile.
// @ts-expect-error verifyApiKey and the other RPCs of AuthService are missing
const incomplete: AsyncServiceImplementation<authv1.AuthServiceServer> = {
  createOrganization: async () => ({}),
};
void incomplete;
