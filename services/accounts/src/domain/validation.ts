import { AppError, z } from '@propdesk/kit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Another organization id shape can never match a row; refuse it before it reaches SQL. */
export function organizationId(value: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new AppError('invalid_request', 'organization_id must be a UUID', 'organization_id');
  return value.toLowerCase();
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

const emailSchema = z.string().email().max(320);

/** Name 1..200 characters (trimmed); email trimmed, validated, and lowercased for lookups. */
export function traderInput(name: string | undefined, email: string | undefined): TraderInput {
  const trimmedName = (name ?? '').trim();
  if (trimmedName.length < 1 || trimmedName.length > 200) {
    throw new AppError('invalid_request', 'name must be 1 to 200 characters', 'name');
  }
  const trimmedEmail = (email ?? '').trim();
  if (!emailSchema.safeParse(trimmedEmail).success) throw new AppError('invalid_request', 'email must be a valid email address', 'email');
  return { name: trimmedName, email: trimmedEmail, emailNormalized: trimmedEmail.toLowerCase() };
}

export const MAX_ACCOUNTS_PER_REQUEST = 100;
export const MAX_INITIAL_BALANCE = 10_000_000;

export function provisioningCount(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > MAX_ACCOUNTS_PER_REQUEST) {
    throw new AppError('invalid_request', `count must be an integer from 1 to ${MAX_ACCOUNTS_PER_REQUEST}`, 'count');
  }
  return count;
}

/** 0 (or absent) = the program's default. */
export function initialBalance(value: number | undefined, programDefault: number): number {
  if (value === undefined || value === 0) return programDefault;
  if (!Number.isFinite(value) || value <= 0 || value > MAX_INITIAL_BALANCE) {
    throw new AppError('invalid_request', `initial_balance must be greater than 0 and at most ${MAX_INITIAL_BALANCE}`, 'initial_balance');
  }
  if (Math.round(value * 100) !== value * 100) {
    throw new AppError('invalid_request', 'initial_balance must have at most 2 decimals', 'initial_balance');
  }
  return value;
}
