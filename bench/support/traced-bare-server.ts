/**
 * The floor of tracing's price (bench/gateway-tracing.ts): a bare node:http server answering a
 * fixed body, with the gateway's own tracing set-up when OTEL_EXPORTER_OTLP_ENDPOINT is set (the
 * kit's registerTelemetry as the gateway calls it: the HTTP instrumentation, the synchronous
 * context manager, the batch processor, OTLP/HTTP export). Nothing of the product runs, so what
 * tracing costs here is what the SDK and the maintained HTTP instrumentation cost for one server
 * span, with no span of ours. Prints its URL on stdout; BENCH_BODY_BYTES sets the body's size.
 *
 * BENCH_SPAN=by-hand: the same set-up, but each request's server span is started and ended here
 * with the API, the instrumentation's attributes set from the request as it sets them (less its
 * redaction of signed query strings, which the bench's query does not need), and the bench asks
 * for /healthz?..., a path the kit's set-up leaves to no instrumentation span. The difference from
 * the instrumentation's span is what its own code costs; the rest is the SDK's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { registerTelemetry } from '@propdesk/kit/telemetry';

// Before node:http is loaded, as the gateway's telemetry.ts is imported first.
registerTelemetry('propdesk-bench-bare', { entry: __filename, express: false, asyncContext: false });

const http = require('node:http') as typeof import('node:http');

const body = Buffer.alloc(Number(process.env.BENCH_BODY_BYTES ?? 20_000), 'x');
const tracer = process.env.BENCH_SPAN === 'by-hand' ? trace.getTracer('propdesk-bench-bare') : undefined;

/** A server span with the attributes the HTTP instrumentation gives one (stable semantic conventions), ended with the response. */
function spanByHand(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const host = req.headers.host ?? '';
  const colon = host.lastIndexOf(':');
  const attributes: Attributes = {
    'http.request.method': req.method,
    'url.scheme': 'http',
    'url.path': query === -1 ? url : url.slice(0, query),
    'server.address': colon === -1 ? host : host.slice(0, colon),
    'server.port': colon === -1 ? 80 : Number(host.slice(colon + 1)),
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'network.protocol.version': req.httpVersion,
    'user_agent.original': req.headers['user-agent'],
    'client.address': req.socket.remoteAddress,
  };
  if (query !== -1) attributes['url.query'] = url.slice(query + 1);
  const span = tracer!.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER, attributes }, propagation.extract(ROOT_CONTEXT, req.headers));
  res.once('finish', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

const server = http.createServer((req, res) => {
  if (tracer) spanByHand(req, res);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as AddressInfo;
  process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
