import { auditRetentionSchema, databasePoolSchema, envBool, envDuration, envInt, hexKey, logLevel, retentionIntervalSchema, serviceAddressSchema, z } from '@propdesk/kit';
import { PRODUCTION_SCHEDULE_SECONDS } from './domain/retry-policy';

const retrySchedule = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return PRODUCTION_SCHEDULE_SECONDS;
    const steps = value.split(',').map((s) => Number(s.trim()));
    if (steps.some((s) => !Number.isFinite(s) || s < 0)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be comma-separated non-negative seconds' });
      return z.NEVER;
    }
    return steps;
  });

/**
 * The TCP ports the deployment's egress lets deliveries reach (the kustomize network policy of the
 * webhooks service allows 443 only): a comma-separated list, or `any`. Registration warns about
 * an endpoint on another port.
 */
const egressPorts = z
  .string()
  .optional()
  .transform((value, ctx): ReadonlySet<number> | null => {
    if (value === undefined || value.trim() === '') return new Set([443]);
    if (value.trim().toLowerCase() === 'any') return null;
    const ports = value.split(',').map((p) => Number(p.trim()));
    if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be comma-separated ports (1-65535) or any' });
      return z.NEVER;
    }
    return new Set(ports);
  });

export const configSchema = serviceAddressSchema.merge(retentionIntervalSchema).merge(databasePoolSchema).merge(auditRetentionSchema).extend({
  DATABASE_URL: z.string().min(1, 'is required'),
  LOG_LEVEL: logLevel,
  CURSOR_SECRET: z.string().min(16, 'must be at least 16 characters'),
  WEBHOOK_SECRET_KEY: hexKey,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: envBool(false),
  WEBHOOK_EGRESS_PORTS: egressPorts,
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  WEBHOOK_TIMEOUT_MS: envInt(10_000, 100, 120_000),
  // A fraction is accepted so tests can exercise disabling in seconds.
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().default(120),
  WEBHOOK_CONCURRENCY: envInt(64, 1, 10_000),
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: envInt(4, 1, 1000),
  WEBHOOK_CA_FILE: z.string().optional(),
  WEBHOOK_POLL_INTERVAL_MS: envInt(1000, 50, 60_000),
  // Retention (kit/retention.ts): delivered deliveries, then events no delivery refers to.
  WEBHOOK_DELIVERIES_RETENTION: envDuration('30d'),
  WEBHOOK_EVENTS_RETENTION: envDuration('30d'),
  /** Idempotency-Key records this long after the write (never less than the 24 h key lifetime). */
  IDEMPOTENCY_RECORDS_RETENTION: envDuration('1d'),
  /** GET /metrics (process RSS, event-loop delay) on this port; unset: none. */
  WEBHOOKS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type Config = z.infer<typeof configSchema>;
