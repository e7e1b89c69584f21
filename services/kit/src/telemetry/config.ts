import { z } from 'zod';
import { namedIssue } from '../issue-message';

/**
 * The standard OpenTelemetry variables this process decides on (SPEC 16). The SDK reads the
 * rest itself: OTEL_TRACES_SAMPLER(_ARG), OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME,
 * OTEL_EXPORTER_OTLP_(TRACES_)HEADERS and _TIMEOUT, OTEL_BSP_*, OTEL_PROPAGATORS.
 *
 * Read here rather than through config.ts: this runs before anything else of the process is
 * loaded (instrumentation must be in place before grpc-js, pg and express are), and config.ts
 * pulls in grpc-js.
 */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** grpc is a valid OTLP protocol, but its exporter would bring a second copy of grpc-js: refused at boot. */
const protocol = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
  .pipe(z.enum(['http/protobuf', 'http/json'], { message: 'must be http/protobuf or http/json (grpc is not supported)' }).optional());

export const telemetryEnvSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_SDK_DISABLED: optionalText,
  OTEL_TRACES_EXPORTER: optionalText,
});

export interface TelemetrySettings {
  /** False: no SDK is loaded, no instrumentation registered. */
  enabled: boolean;
  protocol: 'http/protobuf' | 'http/json';
}

/**
 * Tracing runs only with an OTLP endpoint set, and not with OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none. Throws with the variable's name on a bad value.
 */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  const parsed = telemetryEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => namedIssue(issue.path.join('.'), issue)).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const vars = parsed.data;
  const endpoint = vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? vars.OTEL_EXPORTER_OTLP_ENDPOINT;
  const disabled = vars.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || vars.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none';
  return {
    enabled: endpoint !== undefined && !disabled,
    protocol: vars.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? vars.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
  };
}
