import { z } from 'zod';

/** How a JSON value's kind is said in an error ("a string", "null"). */
const KIND_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  float: 'a number',
  nan: 'NaN',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
  date: 'a date',
  bigint: 'a number',
};

const kind = (name: string) => KIND_WORDS[name] ?? name;

/**
 * What a validation problem says to a client, after the field's name: the schema's own message
 * where it has one ("must be 1 to 200 characters"), and zod's stock wording in the API's words:
 * "must be a string, not null" for "Expected string, received null", "must be one of breach, lock
 * (not pause)" for "Invalid enum value. Expected 'breach' | 'lock', received 'pause'", "must be at
 * most 100" for "Number must be less than or equal to 100". An absent field "is required"
 * (namedIssue puts the field's name in front).
 */
export function issueMessage(issue: z.ZodIssue): string {
  if (issue.message !== z.defaultErrorMap(issue, { defaultError: '', data: undefined }).message) return issue.message;
  switch (issue.code) {
    case z.ZodIssueCode.invalid_type: {
      if (issue.received === 'undefined') return 'is required';
      if (issue.expected === 'integer' && issue.received === 'float') return 'must be a whole number';
      // An enum given something other than a string: zod says the values as "'x' | 'y'".
      const values = String(issue.expected).startsWith("'") ? `one of ${issue.expected.split(' | ').map((v) => v.replace(/^'|'$/g, '')).join(', ')}` : kind(issue.expected);
      return `must be ${values}, not ${kind(issue.received)}`;
    }
    case z.ZodIssueCode.invalid_enum_value:
      return `must be one of ${issue.options.map(String).join(', ')} (not ${typeof issue.received === 'string' ? issue.received : JSON.stringify(issue.received)})`;
    case z.ZodIssueCode.invalid_literal:
      return `must be ${JSON.stringify(issue.expected)}`;
    case z.ZodIssueCode.too_small:
      return `must ${bound(issue.type, issue.exact ? 'exactly' : issue.inclusive ? 'at least' : 'more than', issue.minimum)}`;
    case z.ZodIssueCode.too_big:
      return `must ${bound(issue.type, issue.exact ? 'exactly' : issue.inclusive ? 'at most' : 'less than', issue.maximum)}`;
    case z.ZodIssueCode.not_multiple_of:
      return `must be a multiple of ${String(issue.multipleOf)}`;
    case z.ZodIssueCode.invalid_string:
      return typeof issue.validation === 'string' ? (FORM_WORDS[issue.validation] ?? issue.message) : issue.message;
    default:
      return issue.message;
  }
}

/** A size or a value against its limit: "be at least 1", "have at most 100 items", "be at most 64 characters". */
function bound(type: string, relation: string, limit: number | bigint): string {
  const n = typeof limit === 'bigint' ? limit.toString() : String(limit);
  const s = n === '1' ? '' : 's';
  if (type === 'string') return `be ${relation} ${n} character${s}`;
  if (type === 'array' || type === 'set') return `have ${relation} ${n} item${s}`;
  return `be ${relation} ${n}`;
}

/** The string forms zod checks, said as what the value must be. */
const FORM_WORDS: Record<string, string> = {
  email: 'must be an email address',
  url: 'must be a URL',
  uuid: 'must be a UUID',
  datetime: 'must be an RFC 3339 time, e.g. 2026-01-31T12:00:00Z',
  date: 'must be a date, e.g. 2026-01-31',
  regex: 'is not in the form this field takes',
};

/**
 * `name` and its problem, the name said once: "DATABASE_URL is required", "LOG_LEVEL: must be one
 * of fatal, ... (not verbose)", and a message that names it already as it is ("since must be an
 * RFC 3339 time ...", not "since: since must be ...").
 */
export function namedIssue(name: string, issue: z.ZodIssue): string {
  const message = issueMessage(issue);
  if (message === 'is required') return `${name} is required`;
  return message.startsWith(`${name} `) ? message : `${name}: ${message}`;
}
