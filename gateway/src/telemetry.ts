// Imported first by main.ts: with OTEL_EXPORTER_OTLP_ENDPOINT set, tracing starts here, before
// grpc-js, pg, express and pino are loaded, so that their instrumentations can hook them.
import path from 'node:path';
import { registerTelemetry } from '@propdesk/kit/telemetry';

// No Express instrumentation: /v1 is routed by the gateway's own table (one Express middleware),
// which names the server span by its route template itself; Express's would only run per layer.
// No AsyncLocalStorage: each request's trace context is kept with the request and entered around
// what may start a span or log after an await (http/request-context.ts traceContextOf).
registerTelemetry('propdesk-gateway', { entry: path.join(__dirname, 'main.js'), express: false, asyncContext: false });
