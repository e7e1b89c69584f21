import { z } from '@propdesk/kit';
import { pageOf, pageQuery, parseBody, parsePath, parseQuery, positiveIntegerPath, stringQuery } from './validation';
import { toAppError } from './errors';
import { createLogger } from '@propdesk/kit';

const numberPath = { number: positiveIntegerPath('number', 'account number') };
const page = (query: Record<string, unknown>) => pageOf(parseQuery(pageQuery, query));

describe('request validation', () => {
  it('accepts positive integers in paths and refuses everything else with 400 naming the parameter', () => {
    expect(parsePath(numberPath, { number: '42' })).toEqual({ number: '42' });
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc', '', '99999999999999999999', '0012', '9999999999999999']) {
      expect(() => parsePath(numberPath, { number: bad })).toThrow(
        expect.objectContaining({ code: 'invalid_request', param: 'number', message: 'number must be a positive integer' }),
      );
    }
  });

  it('defaults limit to 50, clamps it at 200 and refuses 0, negatives, fractions and repeats', () => {
    expect(page({})).toEqual({ pageSize: 50, pageToken: '' });
    expect(page({ limit: '500', cursor: 'abc' })).toEqual({ pageSize: 200, pageToken: 'abc' });
    for (const bad of ['0', '-3', '2.5', 'x', '']) {
      expect(() => page({ limit: bad })).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'limit', message: 'limit must be an integer >= 1' }));
    }
    expect(() => page({ limit: ['1', '2'] })).toThrow(expect.objectContaining({ param: 'limit', message: 'limit must be given once, as a string' }));
  });

  it('answers a repeated value as the first time, kept parses included', () => {
    for (let i = 0; i < 3; i += 1) {
      expect(page({ limit: '500' })).toEqual({ pageSize: 200, pageToken: '' });
      expect(() => page({ limit: '0' })).toThrow(expect.objectContaining({ param: 'limit' }));
      expect(() => parsePath(numberPath, { number: 'abc' })).toThrow(expect.objectContaining({ param: 'number' }));
    }
  });

  it('names the query parameter in every message about it, once', () => {
    const shape = { trader_id: stringQuery('a trader', 'uuid', 36), limit: pageQuery.limit };
    expect(() => parseQuery(shape, { trader_id: 'x'.repeat(37) })).toThrow(expect.objectContaining({ param: 'trader_id', message: 'trader_id: must be at most 36 characters' }));
    expect(() => parseQuery(shape, { limit: '0' })).toThrow(expect.objectContaining({ param: 'limit', message: expect.stringMatching(/^limit must be/) }));
  });

  it('refuses a cursor longer than any the service hands out as invalid_cursor', () => {
    expect(() => page({ cursor: 'x'.repeat(1025) })).toThrow(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
  });

  it('names the missing or bad field of a body', () => {
    const schema = z.object({ name: z.string().min(1), count: z.number().int() });
    expect(() => parseBody(schema, { count: 1 })).toThrow(expect.objectContaining({ param: 'name', message: 'name is required' }));
    expect(() => parseBody(schema, { name: 'x', count: 'two' })).toThrow(expect.objectContaining({ param: 'count' }));
    expect(() => parseBody(schema, [1, 2])).toThrow(expect.objectContaining({ param: 'body' }));
  });

  it("says a wrong kind of value or a value outside a list in the API's words, never zod's", () => {
    const schema = z.object({ name: z.string(), count: z.number().int(), action: z.enum(['breach', 'lock']), events: z.array(z.enum(['a.b', 'c.d'])), on: z.boolean() });
    const valid = { name: 'x', count: 1, action: 'lock', events: [], on: true };
    const said = (body: Record<string, unknown>) => {
      try {
        parseBody(schema, { ...valid, ...body });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(said({ name: null })).toBe('name: must be a string, not null');
    expect(said({ count: '100' })).toBe('count: must be a number, not a string');
    expect(said({ count: 1.5 })).toBe('count: must be a whole number');
    expect(said({ action: 'pause' })).toBe('action: must be one of breach, lock (not pause)');
    expect(said({ action: 7 })).toBe('action: must be one of breach, lock, not a number');
    expect(said({ events: ['nope'] })).toBe('events: must be one of a.b, c.d (not nope)');
    expect(said({ on: 'yes' })).toBe('on: must be true or false, not a string');
    const sized = z.object({ count: z.number().int().min(1).max(100), name: z.string().min(2).max(5), tags: z.array(z.string()).max(2), id: z.string().uuid(), ratio: z.number().gt(0) });
    const sizedSaid = (body: Record<string, unknown>) => {
      try {
        parseBody(sized, { count: 1, name: 'ab', tags: [], id: '00000000-0000-4000-8000-000000000000', ratio: 1, ...body });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(sizedSaid({})).toBe('accepted');
    expect(sizedSaid({ count: 0 })).toBe('count: must be at least 1');
    expect(sizedSaid({ count: 101 })).toBe('count: must be at most 100');
    expect(sizedSaid({ name: 'a' })).toBe('name: must be at least 2 characters');
    expect(sizedSaid({ name: 'abcdef' })).toBe('name: must be at most 5 characters');
    expect(sizedSaid({ tags: ['a', 'b', 'c'] })).toBe('tags: must have at most 2 items');
    expect(sizedSaid({ id: 'x' })).toBe('id: must be a UUID');
    expect(sizedSaid({ ratio: 0 })).toBe('ratio: must be more than 0');
    expect(sizedSaid({ name: '' })).toBe('name: must be at least 2 characters');
    expect(() => parseBody(z.object({ symbol: z.string().min(1) }), { symbol: '' })).toThrow(expect.objectContaining({ message: 'symbol: must be at least 1 character' }));
    // A message that names its field already is not prefixed with the name again.
    expect(() => parseBody(z.object({ since: z.string().datetime({ message: 'since must be an RFC 3339 time' }) }), { since: 'x' })).toThrow(
      expect.objectContaining({ param: 'since', message: 'since must be an RFC 3339 time' }),
    );
    // A schema's own message stays as it is.
    expect(() => parseBody(z.object({ n: z.number({ invalid_type_error: 'n must be a count' }) }), { n: 'x' })).toThrow(expect.objectContaining({ message: 'n must be a count' }));
  });
});

describe('error mapping', () => {
  const logger = createLogger('test', { level: 'silent' });

  it('turns body-parser failures into 400 and 413 with API codes', () => {
    expect(toAppError(Object.assign(new Error('x'), { type: 'entity.parse.failed' }), logger).code).toBe('invalid_request');
    expect(toAppError(Object.assign(new Error('x'), { type: 'entity.too.large' }), logger).httpStatus).toBe(413);
  });

  it('hides unexpected errors behind a generic 500', () => {
    const err = toAppError(new Error('relation "accounts" does not exist at /srv/app.js:12'), logger);
    expect(err.toJSON()).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
  });
});
