import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from '@propdesk/kit';

/**
 * The kit's zod with `.openapi()` (component names, descriptions) for the REST schemas the
 * OpenAPI document is generated from. Every gateway module that describes a REST shape imports z
 * from here, so the extension is in place before any schema is built.
 */
extendZodWithOpenApi(z);

export { z };
