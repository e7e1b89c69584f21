import { auditEntriesPage, exactlyOnce, implementService, type AsyncServiceImplementation, type CallContext, type Logger, type ResponseCodec } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';
import type { Deps } from '../deps';
import { createEndpoint } from '../use-cases/create-endpoint';
import { deleteEndpoint } from '../use-cases/delete-endpoint';
import { enableEndpoint } from '../use-cases/enable-endpoint';
import { getEndpoint } from '../use-cases/get-endpoint';
import { listDeliveries } from '../use-cases/list-deliveries';
import { listEndpoints } from '../use-cases/list-endpoints';
import { recoverFailedDeliveries } from '../use-cases/recover-failed-deliveries';
import { retryDelivery } from '../use-cases/retry-delivery';
import { rotateEndpointSecret } from '../use-cases/rotate-endpoint-secret';
import { sendTestEvent } from '../use-cases/send-test-event';
import { updateEndpoint } from '../use-cases/update-endpoint';
import { deliveryToProto, endpointToProto, statusFilterFromProto } from './mappers';

type Server = webhooksv1.WebhooksServiceServer;

export function webhooksHandlers(deps: Deps, logger: Logger): Server {
  // Every write goes through `once`: with an Idempotency-Key it runs exactly once (kit idempotency.ts).
  const once = <R, P>(ctx: CallContext, codec: ResponseCodec<P>, toResponse: (answer: R) => P, write: () => Promise<R>) =>
    exactlyOnce(ctx, deps.db, codec, toResponse, write, logger);
  const handlers: AsyncServiceImplementation<Server> = {
    listAuditEntries(req) {
      return auditEntriesPage(deps.db, deps.cursors, req);
    },
    createEndpoint(req, ctx) {
      return once(
        ctx,
        webhooksv1.CreateEndpointResponse,
        ({ endpoint, secret, warnings }) => ({ endpoint: endpointToProto(endpoint), secret, warnings }),
        () => createEndpoint(deps, { organizationId: req.organizationId, mode: req.mode, url: req.url, events: req.events, description: req.description }),
      );
    },
    async listEndpoints(req) {
      const page = await listEndpoints(deps, { organizationId: req.organizationId, mode: req.mode, pageSize: req.pageSize, pageToken: req.pageToken });
      return { endpoints: page.endpoints.map(endpointToProto), nextPageToken: page.nextPageToken };
    },
    async getEndpoint(req) {
      return { endpoint: endpointToProto(await getEndpoint(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId })) };
    },
    deleteEndpoint(req, ctx) {
      return once(ctx, webhooksv1.DeleteEndpointResponse, () => ({}), () => deleteEndpoint(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId }));
    },
    enableEndpoint(req, ctx) {
      return once(
        ctx,
        webhooksv1.EnableEndpointResponse,
        ({ endpoint }) => ({ endpoint: endpointToProto(endpoint) }),
        () => enableEndpoint(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId, redeliverSince: req.redeliverSince }),
      );
    },
    async listDeliveries(req) {
      const page = await listDeliveries(deps, {
        organizationId: req.organizationId,
        mode: req.mode,
        endpointId: req.endpointId,
        pageSize: req.pageSize,
        pageToken: req.pageToken,
        status: statusFilterFromProto(req.status),
        eventType: req.eventType,
      });
      return { deliveries: page.deliveries.map(deliveryToProto), nextPageToken: page.nextPageToken };
    },
    sendTestEvent(req, ctx) {
      return once(ctx, webhooksv1.SendTestEventResponse, (sent) => sent, () => sendTestEvent(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId }));
    },
    retryDelivery(req, ctx) {
      return once(
        ctx,
        webhooksv1.RetryDeliveryResponse,
        (retried) => retried,
        () => retryDelivery(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId, deliveryId: req.deliveryId }),
      );
    },
    rotateEndpointSecret(req, ctx) {
      return once(
        ctx,
        webhooksv1.RotateEndpointSecretResponse,
        (rotated) => ({ endpoint: endpointToProto(rotated.endpoint), secret: rotated.secret, previousExpiresAt: rotated.previousExpiresAt ?? undefined }),
        () => rotateEndpointSecret(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId, previousExpiresInSeconds: req.previousExpiresInSeconds }),
      );
    },
    updateEndpoint(req, ctx) {
      return once(
        ctx,
        webhooksv1.UpdateEndpointResponse,
        ({ endpoint, warnings }) => ({ endpoint: endpointToProto(endpoint), warnings }),
        () => updateEndpoint(deps, req),
      );
    },
    recoverFailedDeliveries(req, ctx) {
      return once(
        ctx,
        webhooksv1.RecoverFailedDeliveriesResponse,
        (recovered) => recovered,
        () => recoverFailedDeliveries(deps, { organizationId: req.organizationId, mode: req.mode, endpointId: req.endpointId, since: req.since }),
      );
    },
  };
  return implementService<Server>(webhooksv1.WebhooksServiceService, logger, handlers);
}
