// `@propdesk/kit/telemetry`: what a process entry loads before anything else. It requires
// nothing but zod and @opentelemetry/api until tracing is on.
export { registerTelemetry } from './register';
export { telemetryEnvSchema, telemetrySettings, type TelemetrySettings } from './config';
