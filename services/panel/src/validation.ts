import { AppError, pageSize, z } from '@propdesk/kit';
import type { Request } from 'express';

/** Parses a JSON body (absent = {}) with a zod schema; the first problem names its field. */
export function parseBody<S extends z.ZodTypeAny>(schema: S, req: Request): z.infer<S> {
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_request', 'the request body must be a JSON object', 'body');
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.length ? String(issue.path[0]) : undefined;
  throw new AppError('invalid_request', param ? `${param}: ${issue?.message ?? 'invalid'}` : 'invalid request body', param);
}

function queryString(req: Request, name: string): string | undefined {
  const value: unknown = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('invalid_request', `${name} must be given once`, name);
  return value;
}

/** limit and cursor as the /v1 lists take them: default 50, clamped at 200, a bad limit is 400. */
export function pageParams(req: Request): { pageSize: number; pageToken: string } {
  const rawLimit = queryString(req, 'limit');
  let limit: number | undefined;
  if (rawLimit !== undefined) {
    if (!/^\d{1,9}$/.test(rawLimit) || Number(rawLimit) < 1) {
      throw new AppError('invalid_request', 'limit must be a positive integer', 'limit');
    }
    limit = Number(rawLimit);
  }
  return { pageSize: pageSize(limit), pageToken: queryString(req, 'cursor') ?? '' };
}

export { queryString };

/** SPEC section 4. */
export const KNOWN_SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write'] as const;
