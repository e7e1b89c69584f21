/**
 * An OTLP/HTTP receiver for the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) that keeps
 * every span's service, kind, name and times: enough to split a request's time by hop.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TimedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
}

interface JsonExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value?: { stringValue?: string } }> };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; startTimeUnixNano?: string | number; endTimeUnixNano?: string | number }>;
    }>;
  }>;
}

export interface SpanReceiver {
  endpoint: string;
  spans: TimedSpan[];
  close(): Promise<void>;
}

export async function startSpanReceiver(): Promise<SpanReceiver> {
  const spans: TimedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                scope: ss.scope?.name ?? '',
                traceId: s.traceId.toLowerCase(),
                spanId: s.spanId.toLowerCase(),
                parentSpanId: (s.parentSpanId ?? '').toLowerCase(),
                name: s.name,
                kind: s.kind ?? 0,
                startNanos: BigInt(s.startTimeUnixNano ?? 0),
                endNanos: BigInt(s.endTimeUnixNano ?? 0),
              });
            }
          }
        }
      } catch {
        // Not JSON (a protobuf export): this receiver is for http/json only.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
