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
 * where it has one ("must be 1 to 200 characters"), and zod's stock wording ("Expected string,
 * received null", "Invalid enum value. Expected 'breach' | 'lock', received 'pause'") in the API's
 * words: "must be a string, not null", "must be one of breach, lock (not pause)". An absent field is
 * the caller's to say ("is required").
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
    default:
      return issue.message;
  }
}

/** `name` and its problem: "DATABASE_URL is required", "LOG_LEVEL: must be one of fatal, ... (not verbose)". */
export function namedIssue(name: string, issue: z.ZodIssue): string {
  const message = issueMessage(issue);
  return message === 'is required' ? `${name} is required` : `${name}: ${message}`;
}
