import type { Request } from 'express';
import { AppError, MODE_NAMES, modeOfName, type ModeName, type ScopeFields } from '@propdesk/kit';
import { sessionOf } from './session';

/**
 * The panel's JSON API takes the mode per request (SPEC 13): the web client sends the "Test
 * mode" switch's state in this header on every call; absent, live.
 */
export const MODE_HEADER = 'x-propdesk-mode';

export function modeNameOf(req: Request): ModeName {
  const raw = req.get(MODE_HEADER);
  if (raw === undefined || raw === '') return 'live';
  const name = MODE_NAMES.find((m) => m === raw.trim().toLowerCase());
  if (!name) throw new AppError('invalid_request', `${MODE_HEADER} must be one of ${MODE_NAMES.join(', ')}`, 'mode');
  return name;
}

/**
 * The session's organization and the request's mode as the contracts carry them, spread into
 * every organization-scoped request: the panel shows one partition at a time, like the API.
 */
export function tenantOf(req: Request): ScopeFields {
  return { organizationId: sessionOf(req).user.organization_id, mode: modeOfName(modeNameOf(req)) };
}
