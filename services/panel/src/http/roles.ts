import { requireRole } from './session';

/**
 * Who may do what in the panel (SPEC section 11): owners and admins manage the organization's
 * accounts, keys and webhooks; only owners manage the team; members read.
 */
export const managers = requireRole('owner', 'admin');
export const owners = requireRole('owner');
