import type { Request } from 'express';
import { AppError, z } from '@propdesk/kit';

const POSITIVE_INTEGER = /^[1-9][0-9]{0,15}$/;

/** A {number}-style path segment: a positive integer, passed on as the int64 string of the contracts. */
export function positiveIntegerParam(value: unknown, param: string): string {
  if (typeof value !== 'string' || !POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new AppError('invalid_request', `${param} must be a positive integer`, param);
  }
  return value;
}

/** An opaque id path segment (uuid, evt_..., whd_...): bounded, printable, no slashes. */
export function idParam(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128 || !/^[A-Za-z0-9_-]+$/.test(value)) {
    throw new AppError('not_found', `${param === 'id' ? 'object' : param} not found`);
  }
  return value;
}

const parsedQueries = new WeakMap<Request, Record<string, unknown>>();

/** Express 5 re-parses the query string on every `req.query` access: parse once per request. */
function queryOf(req: Request): Record<string, unknown> {
  let query = parsedQueries.get(req);
  if (query === undefined) {
    query = req.query as Record<string, unknown>;
    parsedQueries.set(req, query);
  }
  return query;
}

/** One query parameter as a string; repeated parameters are refused rather than guessed at. */
export function queryString(req: Request, name: string): string | undefined {
  const value: unknown = queryOf(req)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('invalid_request', `${name} must be given once, as a string`, name);
  return value;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface PageParams {
  pageSize: number;
  pageToken: string;
}

/** `limit`: integer >= 1, default 50, larger than 200 clamped; `cursor` passed through to the service. */
export function pageParams(req: Request): PageParams {
  const limit = queryString(req, 'limit');
  let pageSize = DEFAULT_PAGE_SIZE;
  if (limit !== undefined) {
    if (!/^[0-9]+$/.test(limit) || Number(limit) < 1) throw new AppError('invalid_request', 'limit must be an integer >= 1', 'limit');
    pageSize = Math.min(Number(limit), MAX_PAGE_SIZE);
  }
  const cursor = queryString(req, 'cursor') ?? '';
  if (cursor.length > 1024) throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
  return { pageSize, pageToken: cursor };
}

/** The top-level field names the problem (`events`, not `events.0`): that is what a client sent. */
function paramOf(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? 'body' : String(path[0]);
}

/** Validates a JSON body; the first problem becomes a 400 naming the field. */
export function parseBody<S extends z.ZodTypeAny>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = paramOf(issue?.path ?? []);
  const message = issue?.code === 'invalid_type' && issue.received === 'undefined' ? `${param} is required` : `${param}: ${issue?.message ?? 'invalid'}`;
  throw new AppError('invalid_request', message, param);
}

/** An object body; arrays, strings and numbers are refused as a whole. */
export const objectBody = <T extends z.ZodRawShape>(shape: T) => z.object(shape);

export const nonEmptyString = (max: number) => z.string().trim().min(1).max(max);
