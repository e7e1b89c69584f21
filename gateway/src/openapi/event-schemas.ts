import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { EVENT_CATALOG, EVENT_TYPES, restEventSchema, type EventType } from '@propdesk/kit';
import { z } from '../http/zod';

/** A JSON Schema (draft 2020-12, the dialect of the OpenAPI 3.1 document) as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

let schemas: Record<EventType, JsonSchema> | undefined;

/**
 * Each event type's data as a JSON Schema, converted from the kit's event catalog (the zod schemas
 * the services build events with) by @asteasolutions/zod-to-openapi, the converter the OpenAPI
 * document is made with: self-contained (no $ref), strict (additionalProperties false). Built once.
 */
export function eventDataJsonSchemas(): Record<EventType, JsonSchema> {
  if (schemas) return schemas;
  const registry = new OpenAPIRegistry();
  for (const type of EVENT_TYPES) registry.register(type, EVENT_CATALOG[type].schema);
  const generated = (new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas ?? {}) as Record<string, JsonSchema>;
  const converted = {} as Record<EventType, JsonSchema>;
  for (const type of EVENT_TYPES) {
    const schema = generated[type];
    if (!schema) throw new Error(`the event catalog's ${type} was not converted`);
    converted[type] = { $schema: JSON_SCHEMA_DIALECT, title: `${type} data`, ...schema };
  }
  schemas = converted;
  return converted;
}

/** A type's component name: account.breached -> AccountBreachedEvent. */
function componentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
}

const signatureHeaders = z.object({
  'webhook-id': z.string().max(100).openapi({ description: 'the event id (Standard Webhooks)' }),
  'webhook-timestamp': z.string().max(20).openapi({ description: 'unix seconds of this attempt (Standard Webhooks)' }),
  'webhook-signature': z
    .string()
    .max(1000)
    .openapi({ description: 'v1,<base64 HMAC-SHA256 keyed with the base64 part of the whsec_ secret, over id.timestamp.body>; two entries, space-separated, while a rotated secret overlaps' }),
  'X-Service-Id': z.string().max(100).openapi({ description: 'the event id' }),
  'X-Service-Timestamp': z.string().max(20).openapi({ description: 'unix seconds of this attempt' }),
  'X-Service-Signature': z
    .string()
    .max(1000)
    .openapi({ description: 'v1=<hex HMAC-SHA256 keyed with the whole secret, over timestamp.body>; comma-separated entries while a rotated secret overlaps' }),
});

/**
 * The deliveries a webhook endpoint receives, one per event type (the OpenAPI 3.1 `webhooks`
 * section): the envelope of GET /v1/events with that type's data from the catalog, and the
 * signature headers. A receiver acknowledges with any 2xx.
 */
export function registerEventWebhooks(registry: OpenAPIRegistry): void {
  for (const type of EVENT_TYPES) {
    // Registered as a component too: the generator collects components from paths, not webhooks.
    const envelope = registry.register(componentName(type), restEventSchema.extend({ type: z.literal(type), data: EVENT_CATALOG[type].schema }));
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `deliver${componentName(type)}`,
      summary: `${type}: ${EVENT_CATALOG[type].description}`,
      description: 'Sent to every enabled endpoint of the event\'s organization and mode subscribed to the type (or to every type). Verify the signature over the raw body before parsing; deduplicate on the body\'s id.',
      tags: ['Webhooks'],
      request: { headers: signatureHeaders, body: { required: true, content: { 'application/json': { schema: envelope } } } },
      responses: { 200: { description: 'acknowledged: any 2xx is a success; anything else, or no answer within 10 s, is retried' } },
    });
  }
}
