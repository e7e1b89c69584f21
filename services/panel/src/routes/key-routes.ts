import { Router } from 'express';
import { AppError, isUuid, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { requireRole, requireSession, sessionOf } from '../http/session';
import { presentKey, presentRevokedKey } from '../presenters';
import { KNOWN_SCOPES, pageParams, parseBody } from '../validation';

const createKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(KNOWN_SCOPES)).max(KNOWN_SCOPES.length * 4).default([]),
});

export function keyRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const manager = requireRole('owner', 'admin');

  router.get('/panel/api/keys', session, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const page = pageParams(req);
    const result = await clients.auth.listApiKeys({ organizationId: organization_id, ...page });
    res.json({ data: result.apiKeys.map(presentKey), next_cursor: result.nextPageToken || null });
  });

  router.post('/panel/api/keys', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const { name, scopes } = parseBody(createKeyBody, req);
    const result = await clients.auth.createApiKey({ organizationId: organization_id, name, scopes: [...new Set(scopes)] });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    const key = result.apiKey;
    res.status(201).json({ id: key.id, token: result.token, prefix: key.prefix, name: key.name, scopes: key.scopes });
  });

  // SPEC section 4: no /v1 and no /panel prefix; the gateway forwards it here unchanged.
  router.post('/api-keys/:id/revoke', session, manager, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const id = req.params.id;
    // Anything that cannot be a key id is simply an unknown key.
    if (!isUuid(id)) throw new AppError('not_found', 'api key not found');
    const result = await clients.auth.revokeApiKey({ organizationId: organization_id, apiKeyId: id.toLowerCase() });
    if (!result.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    res.json(presentRevokedKey(result.apiKey));
  });

  return router;
}
