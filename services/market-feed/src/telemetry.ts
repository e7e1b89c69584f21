// Imported first by main.ts: with OTEL_EXPORTER_OTLP_ENDPOINT set, tracing starts here, before
// grpc-js, pg, express and pino are loaded, so that their instrumentations can hook them.
import path from 'node:path';
import { registerTelemetry } from '@propdesk/kit/telemetry';

registerTelemetry('propdesk-market-feed', { entry: path.join(__dirname, 'main.js') });
