import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { AnswerInfo } from '../transport';

/**
 * Checks answers against the OpenAPI document the server itself serves (GET /v1/openapi.json):
 * the operation must document the status, and the body must match that response's JSON Schema
 * (draft 2020-12, ajv). An event's data is checked against the schema of its type's delivery in
 * the document's `webhooks`.
 */

const DOCUMENT_ID = 'https://conformance.propdesk.invalid/openapi.json';

type Responses = Record<string, { content?: Record<string, unknown> }>;
interface Document {
  paths: Record<string, Record<string, { responses: Responses }>>;
  webhooks?: Record<string, { post?: unknown }>;
}

const escape = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

export class DocumentCheck {
  readonly #ajv: Ajv2020;
  readonly #document: Document;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: unknown) {
    if (typeof document !== 'object' || document === null || typeof (document as Document).paths !== 'object') {
      throw new Error('GET /v1/openapi.json did not answer an OpenAPI document');
    }
    this.#document = document as Document;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...(document as object), $id: DOCUMENT_ID });
  }

  #validator(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map(escape).join('/')}`;
    let validate = this.#compiled.get(ref);
    if (!validate) {
      validate = this.#ajv.getSchema(ref);
      if (!validate) throw new Error(`the document has no schema at ${ref}`);
      this.#compiled.set(ref, validate);
    }
    return validate;
  }

  #problems(validate: ValidateFunction, value: unknown): string[] {
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`);
  }

  /** What is wrong with an answer, as the document says (empty: it conforms). */
  answerProblems(answer: Pick<AnswerInfo, 'method' | 'template' | 'status' | 'body'>): string[] {
    const method = answer.method.toLowerCase();
    const operation = this.#document.paths[answer.template]?.[method];
    if (!operation) return [`${answer.method} ${answer.template} is not in the document`];
    const response = operation.responses[String(answer.status)];
    if (!response) return [`status ${answer.status} is not one the document lists for ${answer.method} ${answer.template}`];
    if (!response.content?.['application/json']) return [];
    return this.#problems(this.#validator(['paths', answer.template, method, 'responses', String(answer.status), 'content', 'application/json', 'schema']), answer.body);
  }

  /** What is wrong with an event (from the feed) as its type's delivery. */
  eventProblems(event: { type: string }): string[] {
    if (!this.#document.webhooks?.[event.type]?.post) return [`the document describes no delivery of ${event.type}`];
    return this.#problems(this.#validator(['webhooks', event.type, 'post', 'requestBody', 'content', 'application/json', 'schema']), event);
  }
}
