import type { Request } from 'express';
import { z } from '@propdesk/kit';
import { pageParams, parseBody, positiveIntegerParam } from './validation';
import { toAppError } from './errors';
import { createLogger } from '@propdesk/kit';

const requestWithQuery = (query: Record<string, unknown>) => ({ query }) as unknown as Request;

describe('request validation', () => {
  it('accepts positive integers in paths and refuses everything else with 400 naming the parameter', () => {
    expect(positiveIntegerParam('42', 'number')).toBe('42');
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc', '', '99999999999999999999', '0012']) {
      expect(() => positiveIntegerParam(bad, 'number')).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'number' }));
    }
  });

  it('defaults limit to 50, clamps it at 200 and refuses 0, negatives, fractions and repeats', () => {
    expect(pageParams(requestWithQuery({}))).toEqual({ pageSize: 50, pageToken: '' });
    expect(pageParams(requestWithQuery({ limit: '500', cursor: 'abc' }))).toEqual({ pageSize: 200, pageToken: 'abc' });
    for (const bad of ['0', '-3', '2.5', 'x', '']) {
      expect(() => pageParams(requestWithQuery({ limit: bad }))).toThrow(expect.objectContaining({ param: 'limit' }));
    }
    expect(() => pageParams(requestWithQuery({ limit: ['1', '2'] }))).toThrow(expect.objectContaining({ param: 'limit' }));
  });

  it('names the missing or bad field of a body', () => {
    const schema = z.object({ name: z.string().min(1), count: z.number().int() });
    expect(() => parseBody(schema, { count: 1 })).toThrow(expect.objectContaining({ param: 'name', message: 'name is required' }));
    expect(() => parseBody(schema, { name: 'x', count: 'two' })).toThrow(expect.objectContaining({ param: 'count' }));
    expect(() => parseBody(schema, [1, 2])).toThrow(expect.objectContaining({ param: 'body' }));
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
