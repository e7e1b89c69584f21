import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { openApiDocument } from '../openapi/document';

export function registerOpenApiRoute(define: DefineRoute): void {
  const rendered = renderJson(200, openApiDocument);
  define('get', '/v1/openapi.json', { anonymous: true }, async () => rendered);
}
