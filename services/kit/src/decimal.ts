import { z } from 'zod';
import { AppError } from './errors';

/**
 * Exact decimal handling of JSON numbers. A JSON number reaches us as an IEEE double; what the
 * client wrote is taken to be the shortest decimal that reads back as that double (what
 * `String(n)` prints: 0.1 + 0.2 is 0.30000000000000004, 1e-9 is 1e-9). Rules about steps and
 * decimals are checked on that decimal with integer arithmetic, never with a float tolerance: a
 * value that would need rounding to satisfy a rule is refused, not rounded.
 */

/** value = coefficient × 10^-scale, coefficient a non-negative integer, scale >= 0. */
interface ExactDecimal {
  negative: boolean;
  coefficient: bigint;
  scale: number;
}

const DECIMAL_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/** Beyond this, a literal is no double's decimal anyway (doubles span about 1e-324..1e308). */
const MAX_EXPONENT = 1000;
const MAX_LITERAL_LENGTH = 1000;

function parseDecimalText(text: string): ExactDecimal | undefined {
  if (text.length > MAX_LITERAL_LENGTH) return undefined;
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, minus, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!(Math.abs(exponent) <= MAX_EXPONENT)) return undefined;
  let scale = fraction.length - exponent;
  let digits = `${whole}${fraction}`;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  return { negative: minus === '-', coefficient: BigInt(digits), scale };
}

/** The exact decimal of a finite number (its shortest round-trip representation). */
function exactDecimalOf(value: number): ExactDecimal | undefined {
  if (!Number.isFinite(value)) return undefined;
  return parseDecimalText(String(value));
}

function stripTrailingZeros(decimal: ExactDecimal): ExactDecimal {
  let { coefficient, scale } = decimal;
  if (coefficient === 0n) return { negative: false, coefficient, scale: 0 };
  while (scale > 0 && coefficient % 10n === 0n) {
    coefficient /= 10n;
    scale -= 1;
  }
  return { negative: decimal.negative, coefficient, scale };
}

/**
 * Whether a decimal literal (a JSON number as written, a CLI argument) is exactly the decimal of
 * the double it reads as. JSON.parse and Number() round silently: 0.0099999999999999999 reads as
 * 0.01, 1e-2000 as 0, 1.0000000000000000001 as 1. Such a literal asks for something no double
 * keeps: refuse it rather than act on a neighbour.
 */
export function isExactDecimalLiteral(text: string): boolean {
  const literal = parseDecimalText(text);
  if (literal === undefined) return false;
  const read = exactDecimalOf(Number(text));
  if (read === undefined) return false;
  const a = stripTrailingZeros(literal);
  const b = stripTrailingZeros(read);
  return a.coefficient === b.coefficient && a.scale === b.scale && a.negative === b.negative;
}

/** Digits after the decimal point in the shortest representation (1e-9 -> 9, 1.50 -> 1, 1e21 -> 0). */
export function decimalPlaces(value: number): number {
  const decimal = exactDecimalOf(value);
  return decimal === undefined ? 0 : stripTrailingZeros(decimal).scale;
}

/**
 * Whether `value` is an exact multiple of `step` (a decimal string such as '0.01'), computed on
 * the exact decimals: 1.1 is a multiple of 0.01, 1e-9 and 0.1 + 0.2 are not.
 */
export function isMultipleOfStep(value: number, step: string): boolean {
  const v = exactDecimalOf(value);
  const s = parseDecimalText(step);
  if (v === undefined || s === undefined || s.coefficient === 0n) return false;
  const scale = Math.max(v.scale, s.scale);
  const scaledValue = v.coefficient * 10n ** BigInt(scale - v.scale);
  const scaledStep = s.coefficient * 10n ** BigInt(scale - s.scale);
  return scaledValue % scaledStep === 0n;
}

export interface ExactNumberRule {
  /** What the number counts, for messages: 'lots', 'USD'. */
  unit?: string;
  /** Refuse 0 and below (the default); otherwise refuse below 0. */
  positive?: boolean;
  /** A change rather than a quantity: either sign, 0 refused (a balance adjustment); `max` bounds its size. */
  nonZero?: boolean;
  /** Smallest unit, as a decimal string: '0.01' lots, '0.01' USD, '1' for counts. */
  step?: string;
  /** At most this many decimals (a price and its instrument's digits). */
  decimals?: number;
  /** Inclusive upper bound. */
  max?: number;
}

/**
 * Why a number breaks the rule, as a phrase to follow the field's name ("must be a multiple of
 * 0.01 lots ..."); undefined when it keeps it.
 */
export function exactNumberProblem(value: unknown, rule: ExactNumberRule): string | undefined {
  const unit = rule.unit ? ` ${rule.unit}` : '';
  const positive = rule.positive !== false;
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a finite number';
  if (rule.nonZero) {
    if (value === 0) return 'must not be 0 (positive credits, negative debits)';
  } else if (positive ? !(value > 0) : value < 0) return positive ? 'must be greater than 0' : 'must be at least 0';
  if (rule.step !== undefined && !isMultipleOfStep(value, rule.step)) {
    return `must be a multiple of ${rule.step}${unit} (${String(value)} is not, and is refused rather than rounded)`;
  }
  if (rule.decimals !== undefined && decimalPlaces(value) > rule.decimals) {
    return `must have at most ${rule.decimals} decimals (${String(value)} has more, and is refused rather than rounded)`;
  }
  if (rule.max !== undefined && Math.abs(value) > rule.max) return rule.nonZero ? `must be at most ${rule.max}${unit} either way` : `must be at most ${rule.max}${unit}`;
  return undefined;
}

/** Service side: the number itself, or invalid_request naming the field. */
export function requireExactNumber(value: unknown, param: string, rule: ExactNumberRule): number {
  const problem = exactNumberProblem(value, rule);
  if (problem !== undefined) throw new AppError('invalid_request', `${param} ${problem}`, param);
  return value as number;
}

/** The same rule as a zod number schema (the gateway's request schemas). */
export function exactNumberSchema(rule: ExactNumberRule) {
  return z.number().superRefine((value, ctx) => {
    const problem = exactNumberProblem(value, rule);
    if (problem !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });
}

/** The steps the product counts in: one source for the gateway's schemas and the services' checks. */
export const LOT_STEP = '0.01';
export const MONEY_STEP = '0.01';
