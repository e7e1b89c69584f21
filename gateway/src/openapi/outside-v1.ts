import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { KEY_LIFETIME_SECONDS, MODE_NAMES, OVERLAP_SECONDS, type ApiErrorCode } from '@propdesk/kit';
import { z } from '../http/zod';
import { healthSchema } from '../routes/health';
import { ERROR_MEANINGS, errorBodySchema } from './errors';

/**
 * The documented operations outside /v1: the gateway's health and the panel's key revocation
 * (SPEC section 4) and roll (section 12), which the gateway proxies. None goes through the /v1
 * pipeline: no rate-limit headers.
 */

const keyModeSchema = z.enum(MODE_NAMES).openapi({ description: 'live (pfx_live_ token) or test (pfx_test_ token): the partition the key acts on' });

const revokedKeySchema = z
  .object({ id: z.string(), prefix: z.string(), name: z.string(), scopes: z.array(z.string()), mode: keyModeSchema, revoked_at: z.string().datetime() })
  .strict()
  .openapi('RevokedKey');

const rollRequestSchema = z
  .object({
    previous_expires_in: z
      .number()
      .int()
      .min(OVERLAP_SECONDS.min)
      .max(OVERLAP_SECONDS.max)
      .default(OVERLAP_SECONDS.default)
      .openapi({ description: 'seconds the old key keeps working (never longer than it had left); 0 ends it at once' }),
    expires_in: z
      .number()
      .int()
      .min(KEY_LIFETIME_SECONDS.min)
      .max(KEY_LIFETIME_SECONDS.max)
      .optional()
      .openapi({ description: "the new key's lifetime in seconds; absent: it does not expire" }),
  })
  .strict()
  .openapi('RollApiKeyRequest');

const rolledKeySchema = z
  .object({
    id: z.string(),
    token: z.string().describe('pfx_live_ or pfx_test_ (the old key\'s mode) + 40 characters, shown once'),
    prefix: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    mode: keyModeSchema,
    expires_at: z.string().datetime().nullable(),
  })
  .strict()
  .openapi('RolledApiKey');

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
        500: errorAnswer('internal_error'),
        503: errorAnswer('unavailable'),
        default: { $ref: '#/components/responses/Error' },
      },
    },
    {
      method: 'post',
      path: '/api-keys/{id}/revoke',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key (panel session of an owner or admin)',
      description: 'Revoking again answers 200 with the first revoked_at. It takes no body; one that is not application/json is 400.',
      tags: ['Meta'],
      security: [{ panelSession: [] }],
      request: { params: z.object({ id: z.string().uuid().max(36).openapi({ description: 'API key id' }) }) },
      responses: {
        200: { description: 'the revoked key', content: { 'application/json': { schema: revokedKeySchema } } },
        400: errorAnswer('invalid_request'),
        401: errorAnswer('unauthorized'),
        403: errorAnswer('forbidden'),
        404: errorAnswer('not_found'),
        500: errorAnswer('internal_error'),
        503: errorAnswer('unavailable'),
        default: { $ref: '#/components/responses/Error' },
      },
    },
    {
      method: 'post',
      path: '/api-keys/{id}/roll',
      operationId: 'rollApiKey',
      summary: 'Replace an API key: a new key with the same name, scopes, limits and mode (panel session of an owner or admin)',
      description:
        "The old key's expires_at becomes now + previous_expires_in (never later than it was); every gateway honours it " +
        'before this answers. A revoked or expired key cannot be rolled (409).',
      tags: ['Meta'],
      security: [{ panelSession: [] }],
      request: {
        params: z.object({ id: z.string().uuid().max(36).openapi({ description: 'API key id' }) }),
        body: { required: false, content: { 'application/json': { schema: rollRequestSchema } } },
      },
      responses: {
        201: { description: 'the new key (its token is shown once)', content: { 'application/json': { schema: rolledKeySchema } } },
        400: errorAnswer('invalid_request'),
        401: errorAnswer('unauthorized'),
        403: errorAnswer('forbidden'),
        404: errorAnswer('not_found'),
        409: errorAnswer('conflict'),
        500: errorAnswer('internal_error'),
        503: errorAnswer('unavailable'),
        default: { $ref: '#/components/responses/Error' },
      },
    },
  ];
}
