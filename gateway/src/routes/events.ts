import { AppError } from '@propdesk/kit';
import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { pageParams, queryString } from '../http/validation';
import { toRestEvent } from '../mapping/accounts';
import { page } from '../mapping/common';

export const EVENT_TYPES = [
  'account.breached',
  'account.passed',
  'account.flagged',
  'account.created',
  'account.assigned',
  'account.archived',
  'position.opened',
  'position.closed',
  'order.rejected',
  'credits.low',
] as const;

export function registerEventRoutes(define: DefineRoute, { accounts }: Clients): void {
  define('get', '/v1/events', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const type = queryString(req, 'type') ?? '';
    if (type !== '' && !(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new AppError('invalid_request', `type must be one of ${EVENT_TYPES.join(', ')}`, 'type');
    }
    const response = await accounts.call.listEvents({ organizationId, ...pageParams(req), type }, opts);
    return renderJson(200, page(response.events.map(toRestEvent), response.nextPageToken));
  });
}
