import { auditRetentionSchema, databasePoolSchema, envDuration, envInt, logLevel, retentionIntervalSchema, serviceAddressSchema, z } from '@propdesk/kit';

export const authConfigSchema = serviceAddressSchema.merge(retentionIntervalSchema).merge(databasePoolSchema).merge(auditRetentionSchema).extend({
  DATABASE_URL: z.string().url(),
  LOG_LEVEL: logLevel,
  /** HMAC key of page tokens. */
  CURSOR_SECRET: z.string().min(16),
  /** Panel session lifetime (default 12 hours). */
  SESSION_TTL_SECONDS: envInt(12 * 3600, 60),
  /** Failed logins tolerated per normalized email, then per client IP, within the window. */
  LOGIN_MAX_FAILURES_PER_EMAIL: envInt(5, 1),
  LOGIN_MAX_FAILURES_PER_IP: envInt(50, 1),
  LOGIN_FAILURE_WINDOW_SECONDS: envInt(15 * 60, 1),
  /** How long a revoke waits for each cache watcher's acknowledgement before dropping it. */
  INVALIDATION_ACK_TIMEOUT_MS: envInt(2000, 50, 60_000),
  INVALIDATION_HEARTBEAT_MS: envInt(1000, 50, 60_000),
  /** Period of the job purging expired login failures. */
  MAINTENANCE_INTERVAL_SECONDS: envInt(60, 1),
  /** Retention (kit/retention.ts, every RETENTION_INTERVAL_MS): panel sessions this long after they expired. */
  SESSIONS_RETENTION: envDuration('1d'),
  /** GET /metrics (process RSS, event-loop delay) on this port; unset: none. */
  AUTH_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type AuthConfig = z.infer<typeof authConfigSchema>;
