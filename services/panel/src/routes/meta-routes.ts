import { Router } from 'express';
import { ACCOUNT_STATUSES, EVENT_TYPES } from '@propdesk/kit';
import { KNOWN_SCOPES } from '../validation';

/**
 * The vocabularies the pages offer as choices (event types, key scopes, account statuses, roles),
 * served from their one definition so the front end never carries a copy that could drift.
 */
export function metaRoutes(): Router {
  const router = Router();
  router.get('/panel/api/meta', (_req, res) => {
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.json({ event_types: EVENT_TYPES, scopes: KNOWN_SCOPES, account_statuses: ACCOUNT_STATUSES, roles: ['owner', 'admin', 'member'] });
  });
  return router;
}
