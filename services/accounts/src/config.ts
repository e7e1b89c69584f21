import { envBool, envInt, hexKey, logLevel, serviceAddressSchema, z } from '@propdesk/kit';

export const accountsConfigSchema = serviceAddressSchema.extend({
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
  SIMULATE_MARKET: envBool(true),
});

export type AccountsConfig = z.infer<typeof accountsConfigSchema>;
