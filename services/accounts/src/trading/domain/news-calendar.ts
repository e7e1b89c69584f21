import { randomBytes } from 'node:crypto';
import { AppError } from '@propdesk/kit';

/** A news event's id: `news_` and 128 random bits in hex. */
export function newNewsEventId(): string {
  return `news_${randomBytes(16).toString('hex')}`;
}

const NEWS_ID = /^news_[0-9a-f]{32}$/;

export function isNewsEventId(value: unknown): value is string {
  return typeof value === 'string' && NEWS_ID.test(value);
}

/** The most currencies one event names. */
export const MAX_NEWS_CURRENCIES = 20;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * An event's currencies (SPEC 15): 1 to 20 ISO 4217 codes, three capital letters each, each
 * once; a bad one is invalid_request naming the list (`currencies`, as the gateway names a list's item).
 */
export function newsCurrencyList(values: readonly unknown[]): string[] {
  if (values.length === 0 || values.length > MAX_NEWS_CURRENCIES) {
    throw new AppError('invalid_request', `currencies must list 1 to ${MAX_NEWS_CURRENCIES} currencies`, 'currencies');
  }
  values.forEach((value, i) => {
    if (typeof value !== 'string' || !CURRENCY.test(value)) {
      throw new AppError('invalid_request', `currencies[${i}] must be a currency code of three capital letters such as USD`, 'currencies');
    }
  });
  return [...new Set(values as string[])];
}

/** An event's time: a real instant (past times are accepted: a calendar may be entered after the fact). */
export function newsTime(value: Date | undefined): Date {
  if (!value || Number.isNaN(value.getTime())) throw new AppError('invalid_request', 'time is required (ISO 8601)', 'time');
  return value;
}
