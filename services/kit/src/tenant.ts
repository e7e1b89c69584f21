import { commonv1 } from '@propdesk/proto';
import { AppError } from './errors';

/**
 * The partition a request acts on (SPEC 13): the organization and its mode, together. Test mode
 * is a scope exactly like the organization: repositories and use cases take a TenantScope where
 * they used to take an organization id, so a statement that forgets the mode does not compile,
 * and every scoped statement filters `organization_id = … AND livemode = …`. Stripe's `livemode`
 * is the model: one boolean on every object, never inferred.
 */
export interface TenantScope {
  readonly organizationId: string;
  /** true: live objects; false: test objects. */
  readonly livemode: boolean;
}

/** The contract's mode (UNSPECIFIED is live: callers that predate test mode keep working on live data). */
export type Mode = commonv1.Mode;
export const Mode = commonv1.Mode;

/** The names the REST and panel surfaces use. */
export const MODE_NAMES = ['live', 'test'] as const;
export type ModeName = (typeof MODE_NAMES)[number];

/** livemode of a request's mode; an unknown value is invalid_request naming `mode`. */
export function livemodeOf(mode: commonv1.Mode | undefined): boolean {
  switch (mode) {
    case undefined:
    case commonv1.Mode.MODE_UNSPECIFIED:
    case commonv1.Mode.MODE_LIVE:
      return true;
    case commonv1.Mode.MODE_TEST:
      return false;
    default:
      throw new AppError('invalid_request', 'mode must be MODE_LIVE or MODE_TEST', 'mode');
  }
}

/** The contract's mode of an object's livemode. */
export function modeOf(livemode: boolean): commonv1.Mode {
  return livemode ? commonv1.Mode.MODE_LIVE : commonv1.Mode.MODE_TEST;
}

export function modeName(livemode: boolean): ModeName {
  return livemode ? 'live' : 'test';
}

export function modeOfName(name: ModeName): commonv1.Mode {
  return modeOf(name === 'live');
}

/** The mode's name of a contract value (UNSPECIFIED: live). */
export function modeNameOf(mode: commonv1.Mode | undefined): ModeName {
  return modeName(livemodeOf(mode));
}

/**
 * The scope's term of a sealed cursor's associated data: a cursor made in one organization or
 * mode fails authentication in any other (invalid_cursor), exactly as one of another list does.
 */
export function cursorScope(scope: TenantScope): string {
  return `${scope.organizationId}:${modeName(scope.livemode)}`;
}

/** What a gRPC request carries of a scope: spread into the request beside its other fields. */
export interface ScopeFields {
  organizationId: string;
  mode: commonv1.Mode;
}

export function scopeFields(scope: TenantScope): ScopeFields {
  return { organizationId: scope.organizationId, mode: modeOf(scope.livemode) };
}

/**
 * The bind parameters of a scoped statement, `$org` and `$livemode`, written the same way
 * everywhere: `WHERE organization_id = $org AND livemode = $livemode`.
 */
export function scopeBind(scope: TenantScope): { org: string; livemode: boolean } {
  return { org: scope.organizationId, livemode: scope.livemode };
}
