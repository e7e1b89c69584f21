import { EXIT_CONFIG } from '../exit-codes';
import { telemetrySettings } from './config';
import type { SdkOptions } from './sdk';

const REGISTERED = Symbol.for('propdesk.telemetry.registered');

type Registry = typeof globalThis & { [REGISTERED]?: string };

/**
 * Turns tracing on for this process when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set (SPEC 16),
 * under `serviceName` unless OTEL_SERVICE_NAME says otherwise. Each deployable's telemetry.ts
 * calls it, and its main.ts imports that file first, so the instrumentations hook grpc-js, pg,
 * express, ioredis, undici and pino before anything loads them.
 *
 * Only for the process's entry: `entry` is the main.js next to the caller, and nothing happens
 * unless it is what node was started with. So `npm start` (one process per component) traces each
 * under its own name, and an in-process test stack (every component imported by one jest
 * process) registers nothing. Idempotent: a second call in a process is a no-op.
 *
 * `express: false`: for a process whose Express app has no route of Express's own to name (the
 * gateway routes /v1 by its own table and names its server spans itself, setHttpRoute).
 *
 * `asyncContext: false`: for a process that carries each request's trace context itself (the
 * gateway: TraceContext in tracing.ts) and should not pay for AsyncLocalStorage's promise hooks.
 *
 * Unset endpoint: returns without loading the SDK or any instrumentation. A bad value (an OTLP
 * protocol other than http/protobuf or http/json) stops the process at boot.
 */
export function registerTelemetry(serviceName: string, options: { entry: string; env?: NodeJS.ProcessEnv } & SdkOptions): boolean {
  const registry = globalThis as Registry;
  if (registry[REGISTERED] !== undefined) return false;
  if (require.main?.filename !== options.entry) return false;
  let settings;
  try {
    settings = telemetrySettings(options.env ?? process.env);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(EXIT_CONFIG);
  }
  if (!settings.enabled) return false;
  registry[REGISTERED] = serviceName;
  // Required here, not imported: with tracing off the SDK is never loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./sdk') as typeof import('./sdk')).startSdk(settings, serviceName, { express: options.express, asyncContext: options.asyncContext });
  return true;
}
