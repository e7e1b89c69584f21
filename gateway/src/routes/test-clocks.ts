import {
  present,
  restClockQuoteSchema,
  restTestClockDeletedSchema,
  restTestClockSchema,
  toRestClockQuote,
  toRestTestClock,
} from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { freeText, idPath, objectBody, pageOf, pageQuery, rfc3339Time } from '../http/validation';
import { z } from '../http/zod';
import { pageSchema } from '../mapping/common';

const TAG = 'TestClocks';

const clockSchema = restTestClockSchema.openapi('TestClock');
const clockPageSchema = pageSchema(clockSchema).openapi('TestClockPage');
const clockDeletedSchema = restTestClockDeletedSchema.openapi('TestClockDeleted');
const clockQuoteSchema = restClockQuoteSchema.openapi('TestClockQuote');
const clockPath = { id: idPath('test clock', 'test clock id (clock_...)') };

/** A time of the body, as a Date (RFC 3339, at most millisecond precision). */
const frozenTime = (description: string) => rfc3339Time('frozen_time').transform((v) => new Date(v)).openapi({ format: 'date-time', description });

const createBody = objectBody({
  frozen_time: frozenTime('the time its accounts live at, at most 366 days ahead of now; default: now').optional(),
  name: freeText({ max: 200 }).optional(),
}).openapi('CreateTestClockRequest');

const advanceBody = objectBody({
  frozen_time: frozenTime("later than the clock's frozen_time, at most 366 days later"),
}).openapi('AdvanceTestClockRequest');

const quoteBody = objectBody({
  symbol: z.string().min(1).max(32).regex(/^[A-Za-z0-9]+$/, 'must be an instrument symbol such as EURUSD').openapi({ example: 'EURUSD' }),
  bid: z.number().openapi({ example: 1.0842 }),
  ask: z.number().openapi({ example: 1.0843 }),
}).openapi('TestClockQuoteRequest');

const TEST_MODE = 'Test mode only: a live key is answered 403 forbidden.';

/**
 * SPEC 13: test clocks, a time and a price universe of test mode. Every route takes a test key
 * (`access.testMode`): a live key is forbidden before anything else is read.
 */
export const testClockRoutes = [
  route({
    method: 'post',
    path: '/v1/test_clocks',
    operationId: 'createTestClock',
    summary: 'Create a test clock',
    description: `A clock starts ready at frozen_time with the market's prices of its creation. Accounts provisioned on it (POST /v1/accounts {test_clock}) live at its time and trade at its prices. ${TEST_MODE}`,
    tag: TAG,
    access: { apiKey: 'accounts:write', testMode: true },
    body: createBody,
    bodyOptional: true,
    responses: { 201: clockSchema },
    errors: ['invalid_request'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.accounts.call.createTestClock({ ...tenantOf(req), frozenTime: body?.frozen_time, name: body?.name ?? '' }, opts);
      return renderJson(201, toRestTestClock(present(response.testClock, 'a test clock')));
    },
  }),

  route({
    method: 'get',
    path: '/v1/test_clocks',
    operationId: 'listTestClocks',
    summary: 'List test clocks, oldest first',
    description: TEST_MODE,
    tag: TAG,
    access: { apiKey: 'accounts:read', testMode: true },
    query: pageQuery,
    responses: { 200: clockPageSchema },
    errors: ['invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.accounts.call.listTestClocks({ ...tenantOf(req), ...pageOf(query) }, opts);
      return renderJson(200, { data: response.testClocks.map(toRestTestClock), next_cursor: response.nextPageToken === '' ? null : response.nextPageToken });
    },
  }),

  route({
    method: 'get',
    path: '/v1/test_clocks/{id}',
    operationId: 'getTestClock',
    summary: 'One test clock',
    description: TEST_MODE,
    tag: TAG,
    access: { apiKey: 'accounts:read', testMode: true },
    params: clockPath,
    responses: { 200: clockSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.getTestClock({ ...tenantOf(req), id: params.id }, opts);
      return renderJson(200, toRestTestClock(present(response.testClock, 'a test clock')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/test_clocks/{id}/advance',
    operationId: 'advanceTestClock',
    summary: 'Advance a test clock',
    description: `Answers the clock advancing to frozen_time; in the background, time walks forward in order and every effect of the time that passes is applied at its moment (each trading day's start with its daily reference and end-of-day trailing floor, weekend holding flags), each event stamped with that moment; then the clock is ready and test_clock.ready {id, frozen_time} is emitted. While it advances, another advance, its quotes and its accounts' trading are 409 conflict. ${TEST_MODE}`,
    tag: TAG,
    access: { apiKey: 'accounts:write', testMode: true },
    params: clockPath,
    body: advanceBody,
    responses: { 200: clockSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.accounts.call.advanceTestClock({ ...tenantOf(req), id: params.id, frozenTime: body.frozen_time }, opts);
      return renderJson(200, toRestTestClock(present(response.testClock, 'a test clock')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/test_clocks/{id}/quotes',
    operationId: 'publishTestClockQuote',
    summary: "Move a test clock's price",
    description: `The clock's own price of the symbol, at its frozen_time; its accounts are evaluated at once, as a live quote evaluates the others (resting orders filled, stop losses and take profits hit, breaches, passes, warnings). The live feed never moves a clock's accounts. An advancing clock is 409 conflict. ${TEST_MODE}`,
    tag: TAG,
    access: { apiKey: 'trading:write', testMode: true },
    params: clockPath,
    body: quoteBody,
    responses: { 200: clockQuoteSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.publishTestClockQuote({ ...tenantOf(req), testClockId: params.id, quote: body }, opts);
      return renderJson(200, toRestClockQuote(present(response.quote, 'a quote')));
    },
  }),

  route({
    method: 'delete',
    path: '/v1/test_clocks/{id}',
    operationId: 'deleteTestClock',
    summary: 'Delete a test clock and archive its accounts',
    description: TEST_MODE,
    tag: TAG,
    access: { apiKey: 'accounts:write', testMode: true },
    params: clockPath,
    responses: { 200: clockDeletedSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.deleteTestClock({ ...tenantOf(req), id: params.id }, opts);
      return renderJson(200, { id: response.id, deleted: true });
    },
  }),
];
