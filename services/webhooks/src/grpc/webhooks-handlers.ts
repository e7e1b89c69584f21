import { implementService, type AsyncServiceImplementation, type Logger } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';
import type { Deps } from '../deps';
import { createEndpoint } from '../use-cases/create-endpoint';
import { deleteEndpoint } from '../use-cases/delete-endpoint';
import { enableEndpoint } from '../use-cases/enable-endpoint';
import { getEndpoint } from '../use-cases/get-endpoint';
import { listDeliveries } from '../use-cases/list-deliveries';
import { listEndpoints } from '../use-cases/list-endpoints';
import { retryDelivery } from '../use-cases/retry-delivery';
import { rotateEndpointSecret } from '../use-cases/rotate-endpoint-secret';
import { sendTestEvent } from '../use-cases/send-test-event';
import { deliveryToProto, endpointToProto, statusFilterFromProto } from './mappers';

type Server = webhooksv1.WebhooksServiceServer;

export function webhooksHandlers(deps: Deps, logger: Logger): Server {
  const handlers: AsyncServiceImplementation<Server> = {
    async createEndpoint(req) {
      const { endpoint, secret, warnings } = await createEndpoint(deps, { organizationId: req.organizationId, url: req.url, events: req.events });
      return { endpoint: endpointToProto(endpoint), secret, warnings };
    },
    async listEndpoints(req) {
      const page = await listEndpoints(deps, { organizationId: req.organizationId, pageSize: req.pageSize, pageToken: req.pageToken });
      return { endpoints: page.endpoints.map(endpointToProto), nextPageToken: page.nextPageToken };
    },
    async getEndpoint(req) {
      return { endpoint: endpointToProto(await getEndpoint(deps, { organizationId: req.organizationId, endpointId: req.endpointId })) };
    },
    async deleteEndpoint(req) {
      await deleteEndpoint(deps, { organizationId: req.organizationId, endpointId: req.endpointId });
      return {};
    },
    async enableEndpoint(req) {
      const { endpoint } = await enableEndpoint(deps, {
        organizationId: req.organizationId,
        endpointId: req.endpointId,
        redeliverSince: req.redeliverSince,
      });
      return { endpoint: endpointToProto(endpoint) };
    },
    async listDeliveries(req) {
      const page = await listDeliveries(deps, {
        organizationId: req.organizationId,
        endpointId: req.endpointId,
        pageSize: req.pageSize,
        pageToken: req.pageToken,
        status: statusFilterFromProto(req.status),
        eventType: req.eventType,
      });
      return { deliveries: page.deliveries.map(deliveryToProto), nextPageToken: page.nextPageToken };
    },
    async sendTestEvent(req) {
      return sendTestEvent(deps, { organizationId: req.organizationId, endpointId: req.endpointId });
    },
    async retryDelivery(req) {
      return retryDelivery(deps, { organizationId: req.organizationId, endpointId: req.endpointId, deliveryId: req.deliveryId });
    },
    async rotateEndpointSecret(req) {
      const rotated = await rotateEndpointSecret(deps, {
        organizationId: req.organizationId,
        endpointId: req.endpointId,
        previousExpiresInSeconds: req.previousExpiresInSeconds,
      });
      return { endpoint: endpointToProto(rotated.endpoint), secret: rotated.secret, previousExpiresAt: rotated.previousExpiresAt ?? undefined };
    },
  };
  return implementService<Server>(webhooksv1.WebhooksServiceService, logger, handlers);
}
