import type { Request } from 'express';
import { AppError, emailSchema, issueMessage, issueParam, namedIssue, exactNumberSchema, textSchema, type ApiErrorCode, type ExactNumberRule, type TextRule } from '@propdesk/kit';
import { z } from './zod';

/**
 * Path and query fields are zod schemas that take the raw string (or undefined) and give the
 * parsed value; their JSON Schema (for the OpenAPI document) is the one of the parsed value.
 * Each field fails with its own message as a whole sentence; the API code and whether `param`
 * names the field are the field's (FIELD_FAILURES), invalid_request naming it by default.
 */
type Field = z.ZodTypeAny;
export type FieldShape = Record<string, Field>;

interface FieldFailure {
  code: ApiErrorCode;
  namesParam: boolean;
}

const FIELD_FAILURES = new WeakMap<Field, FieldFailure>();

function failsAs<F extends Field>(field: F, code: ApiErrorCode, namesParam: boolean): F {
  FIELD_FAILURES.set(field, { code, namesParam });
  return field;
}

/** The API code a field fails with: what a route can answer for a bad path or query value. */
export function fieldFailureCode(field: Field): ApiErrorCode {
  return FIELD_FAILURES.get(field)?.code ?? 'invalid_request';
}

/**
 * What each field made of the raw values it saw last (limit=50, an absent status...), kept: the
 * same few values arrive on most requests, and a zod parse costs a microsecond or more. A field's
 * parse depends on the raw value alone; only primitive results are kept, so a kept value can never
 * be changed by the code it is handed to, and a field keeps at most PARSED_PER_FIELD of them.
 */
const PARSED_PER_FIELD = 64;
const ABSENT = Symbol('absent');
const parsedValues = new WeakMap<Field, Map<string | symbol, unknown>>();

function parseField(field: Field, name: string, raw: unknown): unknown {
  const key = raw === undefined ? ABSENT : typeof raw === 'string' && raw.length <= 64 ? raw : undefined;
  let known = parsedValues.get(field);
  if (key !== undefined && known?.has(key)) return known.get(key);
  const parsed = field.safeParse(raw);
  if (key !== undefined && parsed.success && (typeof parsed.data !== 'object' || parsed.data === null)) {
    if (known === undefined) parsedValues.set(field, (known = new Map()));
    if (known.size >= PARSED_PER_FIELD) known.clear();
    known.set(key, parsed.data);
  }
  if (parsed.success) return parsed.data;
  const failure = FIELD_FAILURES.get(field) ?? { code: 'invalid_request', namesParam: true };
  const issue = parsed.error.issues[0];
  const message = !issue ? `${name} is not valid` : failure.namesParam ? namedIssue(name, issue) : issueMessage(issue);
  throw new AppError(failure.code, message, failure.namesParam ? name : undefined);
}

export type ParsedFields<S extends FieldShape> = { [K in keyof S]: z.output<S[K]> };

/** Path parameters, in the shape's order: the first bad one is the answer. */
export function parsePath<S extends FieldShape>(shape: S, params: Record<string, unknown>): ParsedFields<S> {
  const parsed: Record<string, unknown> = {};
  for (const name of Object.keys(shape)) parsed[name] = parseField(shape[name], name, params[name]);
  return parsed as ParsedFields<S>;
}

/** Query parameters, in the shape's order; a repeated one is refused rather than guessed at. */
export function parseQuery<S extends FieldShape>(shape: S, query: Record<string, unknown>): ParsedFields<S> {
  const parsed: Record<string, unknown> = {};
  for (const name of Object.keys(shape)) {
    const raw = query[name];
    if (raw !== undefined && typeof raw !== 'string') throw new AppError('invalid_request', `${name} must be given once, as a string`, name);
    parsed[name] = parseField(shape[name], name, raw);
  }
  return parsed as ParsedFields<S>;
}

const POSITIVE_INTEGER = /^[1-9][0-9]{0,15}$/;

/** A {number}-style path segment: a positive integer, passed on as the int64 string of the contracts. */
export function positiveIntegerPath(param: string, description: string) {
  const message = `${param} must be a positive integer`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && POSITIVE_INTEGER.test(v) ? Number(v) : v),
      z.number({ invalid_type_error: message, required_error: message }).int(message).min(1, message).max(Number.MAX_SAFE_INTEGER, message),
    )
    .transform(String)
    .openapi({ description });
}

/**
 * An optional integer query parameter of at least `min` (0 or 1), passed on as the int64 string of
 * the contracts; anything else, an empty value included, is invalid_request naming it.
 */
export function integerQuery(param: string, min: 0 | 1, description: string) {
  const message = `${param} must be ${min === 1 ? 'a positive' : 'a non-negative'} integer`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : v),
      z.number({ invalid_type_error: message }).int(message).min(min, message).max(Number.MAX_SAFE_INTEGER, message).optional(),
    )
    .transform((n) => (n === undefined ? undefined : String(n)))
    .openapi({ description });
}

/** An opaque id path segment (uuid, evt_..., whd_...): bounded, printable, no slashes; anything else names nothing. */
export function idPath(what: string, description: string) {
  const message = `${what} not found`;
  return failsAs(
    z
      .string({ required_error: message })
      .max(128, message)
      .regex(/^[A-Za-z0-9_-]+$/, message)
      .openapi({ description }),
    'not_found',
    false,
  );
}

/** A path field whose bad value names nothing: not_found, like an unknown one. */
export function failsAsNotFound<F extends Field>(field: F): F {
  return failsAs(field, 'not_found', false);
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
const LIMIT_MESSAGE = 'limit must be an integer >= 1';

/** `limit`: integer >= 1, default 50, larger than 200 clamped; `cursor`: opaque, passed through to the service. */
export const pageQuery = {
  limit: z
    .preprocess(
      (v) => (typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v),
      z.number({ invalid_type_error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).default(DEFAULT_PAGE_SIZE),
    )
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    // The largest page is the document's maximum; a larger value is still taken, as MAX_PAGE_SIZE.
    .openapi({ maximum: MAX_PAGE_SIZE, description: `page size, at most ${MAX_PAGE_SIZE} (a larger value is taken as ${MAX_PAGE_SIZE})` }),
  cursor: failsAs(
    z
      .string()
      .max(1024, 'the cursor is not valid for this list')
      .default('')
      // Cursors are base64url (kit/cursor.ts); anything else is refused as invalid_cursor by the list.
      .openapi({ description: 'the next_cursor of the previous page (opaque)', pattern: '^[A-Za-z0-9_-]*$' }),
    'invalid_cursor',
    true,
  ),
};

export interface PageParams {
  pageSize: number;
  pageToken: string;
}

export function pageOf(query: { limit: number; cursor: string }): PageParams {
  return { pageSize: query.limit, pageToken: query.cursor };
}

/** An optional enum filter; an empty value is no filter when `emptyIsNone`. */
export function enumQuery<T extends string>(values: readonly [T, ...T[]], message: string, options: { emptyIsNone?: boolean; description?: string } = {}) {
  return z
    .preprocess((v) => (options.emptyIsNone && v === '' ? undefined : v), z.enum(values, { errorMap: () => ({ message }) }).optional())
    .openapi(options.description ? { description: options.description } : {});
}

/** An optional positive integer filter (an account number), passed on as the int64 string of the contracts. */
export function positiveIntegerQuery(param: string, description: string) {
  const message = `${param} must be a positive integer`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && POSITIVE_INTEGER.test(v) ? Number(v) : v === '' ? undefined : v),
      z.number({ invalid_type_error: message }).int(message).min(1, message).max(Number.MAX_SAFE_INTEGER, message).optional(),
    )
    .transform((n) => (n === undefined ? undefined : String(n)))
    .openapi({ description });
}

/** true or false. */
export function booleanQuery(message: string, description: string) {
  return z
    .preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ invalid_type_error: message }).optional())
    .openapi({ description });
}

/**
 * An RFC 3339 time (2026-01-31T12:00:00Z, an offset, up to millisecond precision): what Date
 * keeps exactly. Anything Date would guess at ("1" is 2001) or truncate is refused.
 */
export function rfc3339Time(param: string) {
  const message = `${param} must be an RFC 3339 time with at most millisecond precision, e.g. 2026-01-31T12:00:00Z`;
  return z
    .string()
    .max(40, message)
    .datetime({ offset: true, message })
    .refine((v) => !/\.\d{4,}/.test(v), message);
}

/** An optional time filter (rfc3339Time), as a Date. */
export function timeQuery(param: string, description: string) {
  return rfc3339Time(param)
    .transform((v) => new Date(v))
    .optional()
    .openapi({ format: 'date-time', description });
}

/** Any string; an empty value is no filter. */
export function stringQuery(description: string, format?: string, maxLength = 256) {
  return z
    .string()
    .max(maxLength, `must be at most ${maxLength} characters`)
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .openapi({ description, ...(format ? { format } : {}) });
}

/**
 * A string of a known form (the pattern); an empty value is no filter. `form` says the form in
 * words for the error: "action must be resource.verb in lower case, e.g. account.halt, at most 100
 * characters" (the pattern is in the OpenAPI document).
 */
export function patternQuery(param: string, description: string, pattern: RegExp, maxLength: number, form: string) {
  const message = `${param} must be ${form}, at most ${maxLength} characters`;
  return z
    .preprocess((v) => (v === '' ? undefined : v), z.string().max(maxLength, message).regex(pattern, message).optional())
    .openapi({ description });
}

const parsedQueries = new WeakMap<Request, Record<string, unknown>>();

/** Express 5 re-parses the query string on every `req.query` access: parse once per request. */
export function queryOf(req: Request): Record<string, unknown> {
  let query = parsedQueries.get(req);
  if (query === undefined) {
    query = req.query as Record<string, unknown>;
    parsedQueries.set(req, query);
  }
  return query;
}

/**
 * The field that names the problem: a top-level field as a whole (`events`, not `events.0`: that
 * is what a client sent), a field inside an object of a list by its path (`phases[1].profit_target_pct`).
 */
function paramOf(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return 'body';
  return path.length <= 2 && typeof path[path.length - 1] === 'number' ? String(path[0]) : issueParam(path);
}

/** Validates a JSON body; the first problem becomes a 400 naming the field. */
export function parseBody<S extends z.ZodTypeAny>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // A strict body (PATCH's) names the field it does not know, not the body.
  if (issue?.code === 'unrecognized_keys') {
    const unknown = issue.keys[0];
    throw new AppError('invalid_request', `${issue.path.length > 0 ? `${issueParam(issue.path)}.` : ''}${unknown} is not a field of this request`, unknown);
  }
  const param = paramOf(issue?.path ?? []);
  throw new AppError('invalid_request', issue ? namedIssue(param, issue) : `${param} is not valid`, param);
}

/** An object body; arrays, strings and numbers are refused as a whole. */
export const objectBody = <T extends z.ZodRawShape>(shape: T) => z.object(shape);

/**
 * Free text (names, reasons, descriptions): taken exactly as sent or refused (control characters,
 * broken UTF-16, blank), the kit's rule that the services apply again for gRPC callers.
 */
export const freeText = (rule: TextRule) => textSchema(rule);

/** An email address exactly as sent, at most 254 characters (the services check it again). */
export const emailAddress = () => emailSchema().openapi({ format: 'email' });

/**
 * A number taken exactly (the kit's rule: refused, never rounded); `step` in the description,
 * since JSON Schema's multipleOf is judged in binary floating point by most validators.
 */
export const exactNumber = (rule: ExactNumberRule, description: string) =>
  exactNumberSchema(rule).openapi({
    ...(rule.nonZero ? {} : rule.positive !== false ? { exclusiveMinimum: 0 } : { minimum: 0 }),
    ...(rule.max !== undefined ? (rule.nonZero ? { minimum: -rule.max, maximum: rule.max } : { maximum: rule.max }) : {}),
    description: rule.step === undefined ? description : `${description}; a multiple of ${rule.step}, anything else is refused (never rounded)`,
  });
