import { createServiceClient } from './index';
import { webhooksv1, authv1 } from '@propdesk/proto';
const c = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, '127.0.0.1:1');
const p: Promise<webhooksv1.RetryDeliveryResponse> = c.call.retryDelivery({ organizationId: '', endpointId: '', deliveryId: '' });
const a = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, '127.0.0.1:1');
const q: Promise<authv1.VerifyApiKeyResponse> = a.call.verifyApiKey({ tokenSha256: '' });
// @ts-expect-error streaming methods are not in the promise client
a.call.watchInvalidations;
void p; void q;
