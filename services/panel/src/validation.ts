import { API_KEY_SCOPES, AppError, namedIssue, pageSize, z } from '@propdesk/kit';
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
  // A strict body (an endpoint's edit) names the field it does not know.
  if (issue?.code === 'unrecognized_keys') throw new AppError('invalid_request', `${issue.keys[0]} is not a field of this request`, issue.keys[0]);
  const param = issue?.path.length ? String(issue.path[0]) : undefined;
  throw new AppError('invalid_request', param && issue ? namedIssue(param, issue) : 'invalid request body', param);
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

/** SPEC sections 4 and 14, listed once in the kit. */
export const KNOWN_SCOPES = API_KEY_SCOPES;

const POSITIVE_INTEGER = /^[1-9]\d{0,15}$/;

/** An account number of the path, as the int64 string the contract carries; anything else is 400 naming `number`. */
export function accountNumberParam(req: Request): string {
  const raw = req.params.number;
  if (typeof raw !== 'string' || !POSITIVE_INTEGER.test(raw) || Number(raw) > Number.MAX_SAFE_INTEGER) {
    throw new AppError('invalid_request', 'number must be a positive integer', 'number');
  }
  return raw;
}

/** An opaque id of the path: bounded and printable; anything else names nothing (404). */
export function idParam(req: Request, name: string, what: string): string {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^[\w.-]{1,128}$/.test(raw)) throw new AppError('not_found', `${what} not found`);
  return raw;
}

/** {data, next_cursor}, the list page of SPEC section 7. */
export function pageOf<T>(data: T[], nextPageToken: string): { data: T[]; next_cursor: string | null } {
  return { data, next_cursor: nextPageToken === '' ? null : nextPageToken };
}
