/**
 * The floor of tracing's price (bench/gateway-tracing.ts): a bare node:http server answering a
 * fixed body, with the gateway's own tracing set-up when OTEL_EXPORTER_OTLP_ENDPOINT is set (the
 * kit's registerTelemetry as the gateway calls it: the HTTP instrumentation, the synchronous
 * context manager, the batch processor, OTLP/HTTP export). Nothing of the product runs, so what
 * tracing costs here is what the SDK and the maintained HTTP instrumentation cost for one server
 * span, with no span of ours. Prints its URL on stdout; BENCH_BODY_BYTES sets the body's size.
 */
import { registerTelemetry } from '@propdesk/kit/telemetry';

// Before node:http is loaded, as the gateway's telemetry.ts is imported first.
registerTelemetry('propdesk-bench-bare', { entry: __filename, express: false, asyncContext: false });

const http = require('node:http') as typeof import('node:http');

const body = Buffer.alloc(Number(process.env.BENCH_BODY_BYTES ?? 20_000), 'x');
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
