import { auditRetentionSchema, databasePoolSchema, envBool, envDuration, envInt, hexKey, logLevel, retentionIntervalSchema, serviceAddressSchema, z } from '@propdesk/kit';

export const accountsConfigSchema = serviceAddressSchema.merge(retentionIntervalSchema).merge(databasePoolSchema).merge(auditRetentionSchema).extend({
  DATABASE_URL: z.string().url(),
  LOG_LEVEL: logLevel,
  /** HMAC key of page tokens. */
  CURSOR_SECRET: z.string().min(16),
  /** AES-256-GCM key sealing executor passwords (64 hex characters). */
  CREDENTIALS_KEY: hexKey,
  /** The trading server name returned with credentials. */
  EXECUTOR_SERVER: z.string().default('PropDesk-Demo'),
  EXECUTOR_SESSION_TTL_SECONDS: envInt(86_400, 60),
  /** Hour (UTC, 0-23) at which the trading day, and so the daily-loss baseline, rolls over. */
  TRADING_DAY_ROLLOVER_HOUR_UTC: envInt(0, 0, 23),
  /** How often the time rules' scheduler (SPEC 15: time limits, inactivity, session ends, lock expiry) takes the deadlines come due. */
  RULE_DEADLINES_INTERVAL_MS: envInt(5000, 50, 30_000),
  /** How often the provisioning recovery loop runs, and how old a pending intent must be to be resolved. */
  PROVISIONING_RECOVERY_INTERVAL_MS: envInt(10_000, 100),
  PROVISIONING_STALE_AFTER_MS: envInt(30_000, 0),
  /** Failed executor logins allowed per account number and per client IP within the window. */
  EXECUTOR_LOGIN_MAX_FAILURES_PER_ACCOUNT: envInt(10, 1),
  EXECUTOR_LOGIN_MAX_FAILURES_PER_IP: envInt(50, 1),
  EXECUTOR_LOGIN_WINDOW_SECONDS: envInt(900, 1),
  /**
   * Trading engine replicas split the accounts over the live leases (engine_leases): a replica
   * renews its lease every TRADING_LEASE_RENEW_MS; one not renewed for TRADING_LEASE_TTL_MS is gone
   * and its accounts move to the others.
   */
  TRADING_LEASE_TTL_MS: envInt(3000, 500, 60_000),
  TRADING_LEASE_RENEW_MS: envInt(1000, 100, 20_000),
  /** Retention (kit/retention.ts, every RETENTION_INTERVAL_MS): executor sessions this long after they ended (expired or revoked). */
  SESSIONS_RETENTION: envDuration('1d'),
  /** Retention: per-minute equity older than this is compacted into the hourly rollups (at least 1h). */
  EQUITY_MINUTES_RETENTION: envDuration('90d'),
  /** Idempotency-Key records this long after the write (never less than the 24 h key lifetime). */
  IDEMPOTENCY_RECORDS_RETENTION: envDuration('1d'),
  /** Benchmarks only (bench/audit.ts): true writes no audit entry, to measure a write without its entry. Never in a deployment. */
  BENCH_SKIP_AUDIT_ENTRIES: envBool(false),
  /** GET /metrics (process RSS, event-loop delay, the trading engine's feed, lag and verdicts) on this port; unset: none. */
  ACCOUNTS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type AccountsConfig = z.infer<typeof accountsConfigSchema>;
