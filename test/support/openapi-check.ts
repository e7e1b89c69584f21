/**
 * Checks an HTTP answer against the gateway's own OpenAPI 3.1 document (the one served at
 * GET /v1/openapi.json, generated from the routes' schemas): the operation must exist, the status
 * must be documented, and the body must match its JSON Schema (response objects are strict, and an
 * error's code must be one the operation lists). Every e2e suite runs every response it receives
 * through `expectDocumented`.
 *
 *   const res = await api.get('/v1/accounts?limit=2');
 *   expectDocumented('get', '/v1/accounts', res.status, res.body);
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { openApiDocument } from '../../gateway/src/routes';

const DOCUMENT_ID = 'https://propdesk.local/openapi.json';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const document = openApiDocument();
ajv.addSchema({ ...document, $id: DOCUMENT_ID });

const compiled = new Map<string, ValidateFunction>();

function pointerEscape(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

type Operations = Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;

/** Returns a list of problems (empty when the answer is documented and valid). */
export function checkResponse(method: string, pathTemplate: string, status: number, body: unknown): string[] {
  const lower = method.toLowerCase();
  const paths = document.paths as unknown as Operations;
  const operation = paths[pathTemplate]?.[lower];
  if (!operation) return [`${method.toUpperCase()} ${pathTemplate} is not in the OpenAPI document`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method.toUpperCase()} ${pathTemplate} does not document status ${status}`];
  if (!response.content?.['application/json']) return [];
  const pointer = ['paths', pathTemplate, lower, 'responses', String(status), 'content', 'application/json', 'schema'].map(pointerEscape).join('/');
  const ref = `${DOCUMENT_ID}#/${pointer}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.getSchema(ref);
    if (!validate) return [`no schema at ${ref}`];
    compiled.set(ref, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'invalid'} ${JSON.stringify(e.params)}`);
}

/** Jest helper: fails the test with the schema problems when the answer is not what the document says. */
export function expectDocumented(method: string, pathTemplate: string, status: number, body: unknown): void {
  const problems = checkResponse(method, pathTemplate, status, body);
  if (problems.length > 0) {
    throw new Error(`${method.toUpperCase()} ${pathTemplate} -> ${status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}

interface ErrorVariant {
  $ref?: string;
  properties?: { error?: { properties?: { code?: { enum?: string[] } } } };
}

/** Every API code the document lists for an operation's error answers. */
export function documentedErrorCodes(method: string, pathTemplate: string): string[] {
  const paths = document.paths as unknown as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: ErrorVariant & { anyOf?: ErrorVariant[] } }> }> }>>;
  const schemas = document.components?.schemas as Record<string, ErrorVariant> | undefined;
  const codes: string[] = [];
  for (const [status, response] of Object.entries(paths[pathTemplate]?.[method.toLowerCase()]?.responses ?? {})) {
    if (Number(status) < 400) continue;
    const schema = response.content?.['application/json']?.schema;
    for (const variant of schema?.anyOf ?? (schema ? [schema] : [])) {
      const resolved = variant.$ref ? schemas?.[variant.$ref.replace('#/components/schemas/', '')] : variant;
      codes.push(...(resolved?.properties?.error?.properties?.code?.enum ?? []));
    }
  }
  return codes;
}
