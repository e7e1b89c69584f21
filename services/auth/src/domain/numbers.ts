import { AppError } from '@propdesk/kit';

// Far below bigint's limit, so that sums of credits never overflow the column.
const MAX_CREDITS_PER_CALL = 1_000_000_000_000n;

/** int64 fields arrive as decimal strings; returns the canonical decimal string. */
export function parseCount(value: string, param: string, min: bigint, max: bigint = MAX_CREDITS_PER_CALL): string {
  const text = (value ?? '').trim() || '0';
  if (!/^-?\d{1,20}$/.test(text)) throw new AppError('invalid_request', `${param} must be an integer`, param);
  const n = BigInt(text);
  if (n < min || n > max) throw new AppError('invalid_request', `${param} must be between ${min} and ${max}`, param);
  return n.toString();
}

export const MAX_RESERVATION = 100_000n;
