import { Router } from 'express';
import { AppError, isUuid, KEY_LIFETIME_SECONDS, KEY_LIMIT_PER_MINUTE, MODE_NAMES, modeOfName, OVERLAP_SECONDS, textSchema, z, type IntegerRange } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { requireRole, requireSession, sessionOf } from '../http/session';
import { modeNameOf, tenantOf } from '../http/tenant';
import { presentCreatedKey, presentKey, presentRevokedKey } from '../presenters';
import { KNOWN_SCOPES, pageParams, parseBody } from '../validation';

/** A whole number inside the range; the message says which. */
const integerIn = (range: IntegerRange, unit: string) => {
  const message = `must be an integer from ${range.min} to ${range.max} (${unit})`;
  return z.number({ invalid_type_error: message }).int(message).min(range.min, message).max(range.max, message);
};

const createKeyBody = z.object({
  name: textSchema({ max: 100 }),
  scopes: z.array(z.enum(KNOWN_SCOPES)).max(KNOWN_SCOPES.length * 4).default([]),
  expires_in: integerIn(KEY_LIFETIME_SECONDS, 'seconds').optional(),
  /** SPEC 13; absent: the mode the panel is showing. */
  mode: z.enum(MODE_NAMES).optional(),
});

const rollKeyBody = z.object({
  previous_expires_in: integerIn(OVERLAP_SECONDS, 'seconds').default(OVERLAP_SECONDS.default),
  expires_in: integerIn(KEY_LIFETIME_SECONDS, 'seconds').optional(),
});

/** null: back to the deployment's default. */
const limitsBody = z.object({
  read: integerIn(KEY_LIMIT_PER_MINUTE, 'requests per minute').nullable(),
  write: integerIn(KEY_LIMIT_PER_MINUTE, 'requests per minute').nullable(),
});

/** Anything that cannot be a key id is simply an unknown key. */
function keyIdOf(raw: string | string[] | undefined): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new AppError('not_found', 'api key not found');
  return raw.toLowerCase();
}

export function keyRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const manager = requireRole('owner', 'admin');

  // The keys of the mode the panel is showing.
  router.get('/panel/api/keys', session, async (req, res) => {
    const page = pageParams(req);
    const result = await clients.auth.listApiKeys({ ...tenantOf(req), ...page });
    res.json({ data: result.apiKeys.map(presentKey), next_cursor: result.nextPageToken || null });
  });

  router.post('/panel/api/keys', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const { name, scopes, expires_in, mode } = parseBody(createKeyBody, req);
    const result = await clients.auth.createApiKey({
      organizationId: organization_id,
      mode: modeOfName(mode ?? modeNameOf(req)),
      name,
      scopes: [...new Set(scopes)],
      expiresInSeconds: expires_in,
    });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    res.status(201).json(presentCreatedKey(result.apiKey, result.token));
  });

  router.post('/panel/api/keys/:id/limits', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const apiKeyId = keyIdOf(req.params.id);
    const { read, write } = parseBody(limitsBody, req);
    const result = await clients.auth.setApiKeyLimits({
      organizationId: organization_id,
      apiKeyId,
      readPerMin: read ?? undefined,
      writePerMin: write ?? undefined,
    });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    res.json(presentKey(result.apiKey));
  });

  // SPEC sections 4 and 12: no /v1 and no /panel prefix; the gateway forwards these here unchanged.
  router.post('/api-keys/:id/revoke', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const result = await clients.auth.revokeApiKey({ organizationId: organization_id, apiKeyId: keyIdOf(req.params.id) });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    res.json(presentRevokedKey(result.apiKey));
  });

  router.post('/api-keys/:id/roll', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const apiKeyId = keyIdOf(req.params.id);
    const { previous_expires_in, expires_in } = parseBody(rollKeyBody, req);
    const result = await clients.auth.rollApiKey({
      organizationId: organization_id,
      apiKeyId,
      previousExpiresInSeconds: previous_expires_in,
      expiresInSeconds: expires_in,
    });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    res.status(201).json(presentCreatedKey(result.apiKey, result.token));
  });

  return router;
}
