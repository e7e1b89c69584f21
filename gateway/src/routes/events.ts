import { AppError, EVENT_TYPES } from '@propdesk/kit';
import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { pageParams, queryString } from '../http/validation';
import { toRestEvent } from '../mapping/accounts';
import { page } from '../mapping/common';

/** The event types of SPEC section 8 (the kit's one list). */
export { EVENT_TYPES };

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
