import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/**
 * A real OTLP/HTTP trace receiver for tests: POST /v1/traces in either encoding the SDK sends,
 * `application/x-protobuf` (decoded with protobufjs against otlp/trace.proto) or
 * `application/json`, answered as a collector does. Every span lands in `spans`, flattened with
 * its resource's service.name.
 */

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  service: string;
  /** The resource's attributes (service.name among them). */
  resource: Record<string, AttributeValue>;
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  scope: string;
  attributes: Record<string, AttributeValue>;
  links: Array<{ traceId: string; spanId: string }>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startNanos: bigint;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

export interface OtlpReceiver {
  /** http://127.0.0.1:port: what OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received, in order. */
  encodings: string[];
  /** Resolves with the spans received once `predicate` holds for them, or rejects after timeoutMs. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const requestType = protobuf
  .parse(readFileSync(path.join(__dirname, 'otlp', 'trace.proto'), 'utf8'), { keepCase: false })
  .root.lookupType('otlp.ExportTraceServiceRequest');

// The JSON encoding spells OTLP's messages with lowerCamelCase names, ids in hex and 64-bit
// numbers as strings or numbers; the protobuf decoding below is converted to the same shape.
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: unknown;
  bytesValue?: string;
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  attributes?: JsonKeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}
interface JsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: JsonSpan[] }>;
  }>;
}

function valueOf(value: JsonAnyValue | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) out[key] = valueOf(value);
  return out;
}

function flatten(request: JsonRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          service: String(resource['service.name'] ?? ''),
          resource,
          traceId: span.traceId.toLowerCase(),
          spanId: span.spanId.toLowerCase(),
          parentSpanId: (span.parentSpanId ?? '').toLowerCase(),
          name: span.name,
          kind: span.kind ?? 0,
          scope: scopeSpans.scope?.name ?? '',
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((l) => ({ traceId: l.traceId.toLowerCase(), spanId: l.spanId.toLowerCase() })),
          statusCode: span.status?.code ?? 0,
          startNanos: BigInt(span.startTimeUnixNano ?? 0),
        });
      }
    }
  }
  return spans;
}

/** protobuf -> the JSON encoding's shape: bytes as hex, 64-bit integers as strings. */
function decodeProtobuf(body: Buffer): JsonRequest {
  const message = requestType.decode(body);
  return requestType.toObject(message, { longs: String, bytes: String, defaults: false, oneofs: false }) as JsonRequest & Record<string, unknown>;
}

function hexIds(request: JsonRequest): JsonRequest {
  // toObject renders bytes as base64: the JSON encoding carries them as hex.
  const hex = (b64: string | undefined) => (b64 ? Buffer.from(b64, 'base64').toString('hex') : '');
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        span.parentSpanId = hex(span.parentSpanId);
        for (const link of span.links ?? []) {
          link.traceId = hex(link.traceId);
          link.spanId = hex(link.spanId);
        }
      }
    }
  }
  return request;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const encodings: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const type = String(req.headers['content-type'] ?? '').split(';')[0].trim();
      let body = Buffer.concat(chunks);
      try {
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        let request: JsonRequest;
        if (type === 'application/x-protobuf') request = hexIds(decodeProtobuf(body));
        else if (type === 'application/json') request = JSON.parse(body.toString('utf8')) as JsonRequest;
        else {
          res.writeHead(415).end();
          return;
        }
        encodings.push(type);
        spans.push(...flatten(request));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      // An empty ExportTraceServiceResponse: full success.
      if (type === 'application/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    encodings,
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the spans expected did not arrive within ${timeoutMs} ms; received: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
