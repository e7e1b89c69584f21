import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ApiErrorCode } from '@propdesk/kit';
import { z } from '../http/zod';
import { healthSchema } from '../routes/health';
import { ERROR_MEANINGS, errorBodySchema } from './errors';

/**
 * The two documented operations outside /v1: the gateway's health and the panel's key revocation
 * (SPEC section 4), which the gateway proxies. Neither goes through the /v1 pipeline: no
 * rate-limit headers.
 */

const revokedKeySchema = z
  .object({ id: z.string(), prefix: z.string(), name: z.string(), scopes: z.array(z.string()), revoked_at: z.string().datetime() })
  .strict()
  .openapi('RevokedKey');

const errorAnswer = (code: ApiErrorCode) => ({
  description: `\`${code}\`: ${ERROR_MEANINGS[code]}`,
  content: { 'application/json': { schema: errorBodySchema([code]) } },
});

export function outsideV1Operations(): RouteConfig[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Health of the gateway and every service',
      description: '200 when every service answers its health check, 503 otherwise. For probes; not rate limited.',
      tags: ['Meta'],
      security: [],
      responses: {
        200: { description: 'every service serving', content: { 'application/json': { schema: healthSchema } } },
        503: errorAnswer('unavailable'),
      },
    },
    {
      method: 'post',
      path: '/api-keys/{id}/revoke',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key (panel session of an owner or admin)',
      description: 'Revoking again answers 200 with the first revoked_at.',
      tags: ['Meta'],
      security: [{ panelSession: [] }],
      request: { params: z.object({ id: z.string().uuid().openapi({ description: 'API key id' }) }) },
      responses: {
        200: { description: 'the revoked key', content: { 'application/json': { schema: revokedKeySchema } } },
        401: errorAnswer('unauthorized'),
        403: errorAnswer('forbidden'),
        404: errorAnswer('not_found'),
        503: errorAnswer('unavailable'),
      },
    },
  ];
}
