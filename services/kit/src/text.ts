import { z } from 'zod';
import { AppError } from './errors';

/**
 * Free text (names, reasons, descriptions) is stored exactly as sent or refused, never
 * transformed: no trimming, no stripping, no replacement. Refused: control characters (Unicode
 * category Cc: C0, DEL, C1; tabs and line breaks included unless a field allows line breaks),
 * lone surrogates (broken UTF-16, which UTF-8 storage would silently turn into U+FFFD), and
 * values that are empty or only whitespace. Lengths count UTF-16 code units, as JSON clients do.
 */

export interface TextRule {
  /** Inclusive bounds on the length. */
  min?: number;
  max: number;
  /** Multi-line fields (descriptions) may contain \n; every other control character is still refused. */
  lineBreaks?: boolean;
}

const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINE_FEED = /(?!\n)\p{Cc}/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BLANK = /^\s*$/u;

/** Why a text breaks the rule, as a phrase to follow the field's name; undefined when it keeps it. */
export function textProblem(value: unknown, rule: TextRule): string | undefined {
  const min = rule.min ?? 1;
  if (typeof value !== 'string') return 'must be a string';
  if (value.length < min || value.length > rule.max) return min === rule.max ? `must be ${min} characters` : `must be ${min} to ${rule.max} characters`;
  if (min > 0 && BLANK.test(value)) return 'must not be blank';
  if ((rule.lineBreaks ? CONTROL_BUT_LINE_FEED : CONTROL).test(value)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (it contains a lone surrogate)';
  return undefined;
}

/**
 * The rule as a JSON Schema (ECMA-262) pattern, for the OpenAPI document: no control characters
 * (line feeds allowed where the field allows line breaks) and at least one non-whitespace
 * character. Lone surrogates cannot be written as a pattern; the server refuses them too.
 */
export function textPattern(rule: Pick<TextRule, 'lineBreaks' | 'min'>): string {
  const allowed = rule.lineBreaks ? '[^\\u0000-\\u0009\\u000B-\\u001F\\u007F-\\u009F]' : '[^\\u0000-\\u001F\\u007F-\\u009F]';
  return (rule.min ?? 1) > 0 ? `^(?=[\\s\\S]*\\S)${allowed}*$` : `^${allowed}*$`;
}

/** Service side: the text itself, unchanged, or invalid_request naming the field. */
export function requireText(value: unknown, param: string, rule: TextRule): string {
  const problem = textProblem(value, rule);
  if (problem !== undefined) throw new AppError('invalid_request', `${param} ${problem}`, param);
  return value as string;
}

/**
 * The same rule as a zod string schema (the gateway's and the panel's request schemas). The rule
 * is a `regex` check of textPattern, so the OpenAPI document generated from the schema states it
 * as the field's pattern; its failure message is textProblem's (blank, control characters), and a
 * lone surrogate, which no pattern can express, is refused by the refinement after it.
 */
export function textSchema(rule: TextRule) {
  const min = rule.min ?? 1;
  const length = `must be ${min} to ${rule.max} characters`;
  return z
    .string({ errorMap: (issue, ctx) => ({ message: issue.code === 'invalid_string' ? (textProblem(ctx.data, rule) ?? ctx.defaultError) : ctx.defaultError }) })
    .min(min, length)
    .max(rule.max, length)
    .regex(new RegExp(textPattern(rule)))
    .refine((value) => !LONE_SURROGATE.test(value), 'must be well-formed Unicode (it contains a lone surrogate)');
}

/** RFC 5321: a path is at most 256 octets with its angle brackets, so an address at most 254. */
export const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;
const emailShape = z.string().email();

export function emailProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_EMAIL_LENGTH) return `must be at most ${MAX_EMAIL_LENGTH} characters`;
  const at = value.lastIndexOf('@');
  if (at > MAX_LOCAL_PART_LENGTH) return `must have at most ${MAX_LOCAL_PART_LENGTH} characters before the @`;
  if (CONTROL.test(value) || LONE_SURROGATE.test(value) || !emailShape.safeParse(value).success) return 'must be a valid email address';
  return undefined;
}

/** An email address exactly as sent (no trimming, no case change), or invalid_request naming the field. */
export function requireEmail(value: unknown, param = 'email'): string {
  const problem = emailProblem(value);
  if (problem !== undefined) throw new AppError('invalid_request', `${param} ${problem}`, param);
  return value as string;
}

export function emailSchema() {
  return z
    .string()
    .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
    .superRefine((value, ctx) => {
      const problem = emailProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    });
}
