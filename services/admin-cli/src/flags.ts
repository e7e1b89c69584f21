import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AppError, isExactDecimalLiteral, isUuid, MODE_NAMES, modeOfName, type Mode } from '@propdesk/kit';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;
export type FlagValues = Record<string, string | boolean | undefined>;

/** node:util parseArgs in strict mode; its errors become invalid_request naming the flag. */
export function parseFlags(args: string[], options: FlagSpec): FlagValues {
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    return values as FlagValues;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const flag = /'(-{1,2}[\w-]+)/.exec(message)?.[1]?.replace(/^-+/, '');
    throw new AppError('invalid_request', firstSentence(message), flag);
  }
}

function firstSentence(message: string): string {
  return message.split('\n')[0].replace(/\.$/, '');
}

export function requiredString(values: FlagValues, flag: string): string {
  const value = values[flag];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('invalid_request', `--${flag} is required`, flag);
  }
  return value.trim();
}

export function optionalString(values: FlagValues, flag: string): string | undefined {
  const value = values[flag];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('invalid_request', `--${flag} must not be empty`, flag);
  }
  return value.trim();
}

export function organizationId(values: FlagValues): string {
  const id = requiredString(values, 'org');
  if (!isUuid(id)) throw new AppError('invalid_request', '--org must be an organization id (UUID)', 'org');
  return id.toLowerCase();
}

/** --mode live|test (SPEC 13); absent: live. */
export function modeFlag(values: FlagValues): Mode {
  const raw = optionalString(values, 'mode') ?? 'live';
  const name = MODE_NAMES.find((m) => m === raw);
  if (!name) throw new AppError('invalid_request', `--mode must be ${MODE_NAMES.join(' or ')}`, 'mode');
  return modeOfName(name);
}

export function uuidFlag(values: FlagValues, flag: string): string {
  const id = requiredString(values, flag);
  if (!isUuid(id)) throw new AppError('invalid_request', `--${flag} must be a UUID`, flag);
  return id.toLowerCase();
}

/** A whole number of credits; kept as a decimal string because credits travel as int64. */
export function nonNegativeInteger(raw: string, flag: string): string {
  if (!/^\d{1,15}$/.test(raw)) {
    throw new AppError('invalid_request', `--${flag} must be a non-negative integer`, flag);
  }
  return String(Number(raw));
}

export function integerInRange(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new AppError('invalid_request', `--${flag} must be an integer from ${min} to ${max}`, flag);
  }
  return Number(raw);
}

/** A positive decimal taken exactly: digits a double does not keep (1.0000000000000000001) are refused, not rounded. */
export function positiveNumber(raw: string, flag: string): number {
  const value = /^\d+(\.\d+)?$/.test(raw) && isExactDecimalLiteral(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new AppError('invalid_request', `--${flag} must be a positive number`, flag);
  }
  return value;
}

/** A whole number inside the range (seconds, requests per minute...), or invalid_request naming the flag. */
export function integerFlag(values: FlagValues, flag: string, range: { min: number; max: number }): number {
  const raw = requiredString(values, flag);
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new AppError('invalid_request', `--${flag} must be an integer from ${range.min} to ${range.max}`, flag);
  }
  return value;
}
