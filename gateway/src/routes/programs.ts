import { PROGRAM_NAME_PATTERN, PROGRAM_STATUSES, programCreateSchema, programUpdateSchema, restProgramSchema, type RestProgram } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, failsAsNotFound, pageOf, pageQuery } from '../http/validation';
import { z } from '../http/zod';
import { page, pageSchema } from '../mapping/common';

const TAG = 'Programs';

/** The program as the accounts service answers it (a Struct of exactly the REST shape). */
export const programSchema = restProgramSchema.openapi('Program');
const programPageSchema = pageSchema(programSchema).openapi('ProgramPage');

export const programPath = {
  name: failsAsNotFound(z.string().max(63, 'program not found').regex(PROGRAM_NAME_PATTERN, 'program not found').openapi({ description: 'the program name' })),
};

const VERSION_MESSAGE = 'version must be a positive integer';
/** Nine digits at most: a longer value is not read as a number at all. */
const MAX_VERSION = 999_999_999;
const versionQuery = z
  .preprocess(
    (v) => (typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : v),
    z.number({ invalid_type_error: VERSION_MESSAGE }).int(VERSION_MESSAGE).min(1, VERSION_MESSAGE).max(MAX_VERSION, VERSION_MESSAGE).optional(),
  )
  .openapi({ description: 'an earlier version; default: the latest' });

function toRestProgram(value: { [key: string]: unknown } | undefined): RestProgram {
  return (value ?? {}) as unknown as RestProgram;
}

export const programRoutes = [
  route({
    method: 'get',
    path: '/v1/programs',
    operationId: 'listPrograms',
    summary: 'List programs',
    description: 'The latest version of each program of the organization, built-ins (builtin: true) included, in name order.',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    query: { ...pageQuery, status: enumQuery(PROGRAM_STATUSES, `status must be one of ${PROGRAM_STATUSES.join(', ')}`, { emptyIsNone: true }) },
    responses: { 200: programPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.accounts.call.listPrograms({ ...tenantOf(req), ...pageOf(query), status: query.status ?? '' }, opts);
      return renderJson(200, page(response.programs.map(toRestProgram), response.nextPageToken));
    },
  }),

  route({
    method: 'post',
    path: '/v1/programs',
    operationId: 'createProgram',
    summary: 'Create a program (version 1)',
    description: 'A bad field is 400 invalid_request whose param is its path, e.g. phases[1].profit_target_pct; a name already taken (a built-in included) is 409 conflict.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    body: programCreateSchema.openapi('CreateProgramRequest'),
    responses: { 201: programSchema },
    errors: ['invalid_request', 'conflict'],
    async handler({ req, clients, opts }) {
      // The service validates the body again (gRPC callers); it gets what the client sent.
      const response = await clients.accounts.call.createProgram({ ...tenantOf(req), program: req.body as Record<string, unknown> }, opts);
      return renderJson(201, toRestProgram(response.program));
    },
  }),

  route({
    method: 'get',
    path: '/v1/programs/{name}',
    operationId: 'getProgram',
    summary: 'One program',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: programPath,
    query: { version: versionQuery },
    responses: { 200: programSchema },
    errors: ['invalid_request', 'not_found'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.accounts.call.getProgram({ ...tenantOf(req), name: params.name, version: query.version ?? 0 }, opts);
      return renderJson(200, toRestProgram(response.program));
    },
  }),

  route({
    method: 'put',
    path: '/v1/programs/{name}',
    operationId: 'updateProgram',
    summary: 'Replace a program: the next version',
    description: 'Accounts already issued keep the version frozen into them. A built-in is 409 conflict.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: programPath,
    body: programUpdateSchema.openapi('UpdateProgramRequest'),
    responses: { 200: programSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.updateProgram(
        { ...tenantOf(req), name: params.name, program: req.body as Record<string, unknown> },
        opts,
      );
      return renderJson(200, toRestProgram(response.program));
    },
  }),

  route({
    method: 'post',
    path: '/v1/programs/{name}/archive',
    operationId: 'archiveProgram',
    summary: 'Archive a program: no new accounts from it',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: programPath,
    responses: { 200: programSchema },
    errors: ['not_found', 'conflict'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.archiveProgram({ ...tenantOf(req), name: params.name }, opts);
      return renderJson(200, toRestProgram(response.program));
    },
  }),
];
