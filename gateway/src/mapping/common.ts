import { z } from '../http/zod';

/** Timestamps travel as Date; REST shows ISO 8601 UTC, null when absent. */
export function isoOrNull(value: Date | undefined): string | null {
  return value === undefined ? null : iso(value);
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * Accounts provisioned together share created_at, so a page often repeats one instant: a
 * one-entry memo spares most toISOString calls on the hot path.
 */
export function iso(value: Date | undefined): string {
  const ms = value === undefined ? 0 : value.getTime();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

export function numberOrNull(value: number | undefined): number | null {
  return value === undefined ? null : value;
}

export function stringOrNull(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/** int64 fields arrive as strings (forceLong=string); REST shows JSON numbers. */
export function int64(value: string): number {
  return Number(value);
}

/** A list page of SPEC section 7: exactly {data, next_cursor}. */
export function pageSchema<T extends z.ZodTypeAny>(item: T) {
  return z
    .object({ data: z.array(item), next_cursor: z.string().nullable().describe('null on the last page') })
    .strict();
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function page<T>(data: T[], nextPageToken: string): Page<T> {
  return { data, next_cursor: nextPageToken === '' ? null : nextPageToken };
}
