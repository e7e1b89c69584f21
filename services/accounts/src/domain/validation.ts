import { AppError, isUuid, livemodeOf, MAX_INITIAL_BALANCE, MONEY_STEP, requireEmail, requireExactNumber, requireText, type ScopeFields, type TenantScope } from '@propdesk/kit';

/** Another organization id shape can never match a row; refuse it before it reaches SQL. */
export function organizationId(value: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new AppError('invalid_request', 'organization_id must be a UUID', 'organization_id');
  return value.toLowerCase();
}

/** The partition a request acts on: its organization (a UUID) and its mode (UNSPECIFIED = live). */
export function tenantScope(request: ScopeFields): TenantScope {
  return { organizationId: organizationId(request.organizationId), livemode: livemodeOf(request.mode) };
}

export function uuidParam(value: string, param: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new AppError('invalid_request', `${param} must be a UUID`, param);
  return value.toLowerCase();
}

/**
 * Account numbers travel as int64 strings (forceLong=string). Anything that is not a positive
 * integer within the safe range is invalid_request naming the parameter.
 */
export function accountNumber(value: string | number | undefined, param = 'number'): number {
  const text = typeof value === 'number' ? String(value) : (value ?? '');
  if (!/^[0-9]{1,16}$/.test(text)) throw new AppError('invalid_request', `${param} must be a positive integer`, param);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('invalid_request', `${param} must be a positive integer`, param);
  return n;
}

/** An int64 position (string); 0 = from the beginning. */
export function position(value: string | undefined, param: string): number {
  const text = value === undefined || value === '' ? '0' : value;
  if (!/^[0-9]{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new AppError('invalid_request', `${param} must be a non-negative integer`, param);
  }
  return Number(text);
}

export interface TraderInput {
  name: string;
  email: string;
  emailNormalized: string;
}

/** Trader names are at most this long (UTF-16 code units, as JSON clients count). */
export const MAX_TRADER_NAME_LENGTH = 200;

/**
 * Name and email exactly as sent (never trimmed or otherwise changed; control characters, blank
 * names and addresses over 254 characters refused); the email lowercased only for lookups.
 */
export function traderInput(name: string | undefined, email: string | undefined): TraderInput {
  const checkedName = requireText(name, 'name', { max: MAX_TRADER_NAME_LENGTH });
  const checkedEmail = requireEmail(email, 'email');
  return { name: checkedName, email: checkedEmail, emailNormalized: checkedEmail.toLowerCase() };
}

export const MAX_ACCOUNTS_PER_REQUEST = 100;

export function provisioningCount(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > MAX_ACCOUNTS_PER_REQUEST) {
    throw new AppError('invalid_request', `count must be an integer from 1 to ${MAX_ACCOUNTS_PER_REQUEST}`, 'count');
  }
  return count;
}

/** 0 (or absent) = the program's default; otherwise whole cents up to MAX_INITIAL_BALANCE, never rounded. */
export function initialBalance(value: number | undefined, programDefault: number): number {
  if (value === undefined || value === 0) return programDefault;
  return requireExactNumber(value, 'initial_balance', { unit: 'USD', step: MONEY_STEP, max: MAX_INITIAL_BALANCE });
}
