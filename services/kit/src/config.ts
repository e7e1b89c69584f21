import { z } from 'zod';
import { EXIT_CONFIG } from './exit-codes';
import { namedIssue } from './issue-message';
import { loadGrpcTls, type GrpcTls } from './grpc-tls';

export { z };

export class ConfigError extends Error {}

export { EXIT_CONFIG };

/**
 * Reads the environment once through a schema. Bad config names the variable and stops the
 * process at boot (throws ConfigError when exitOnError is false, for tests).
 */
export function loadConfig<S extends z.ZodTypeAny>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  exitOnError = true,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => namedIssue(issue.path.join('.') || '(env)', issue)).join('; ');
  const message = `invalid configuration: ${problems}`;
  if (!exitOnError) throw new ConfigError(message);
  process.stderr.write(`${message}\n`);
  process.exit(EXIT_CONFIG);
}

const boolFromEnv = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

export const envBool = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v === 'true' || v === '1'));

export const envInt = (defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(defaultValue);

export const port = (defaultValue: number) => z.coerce.number().int().min(0).max(65535).default(defaultValue);

/** A 32-byte key as 64 hex characters. */
export const hexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)');

export { boolFromEnv };

/** Where each service listens and where clients find it. Shared by every process. */
export const serviceAddressSchema = z.object({
  GRPC_HOST: z.string().default('127.0.0.1'),
  AUTH_GRPC_PORT: port(50051),
  ACCOUNTS_GRPC_PORT: port(50052),
  WEBHOOKS_GRPC_PORT: port(50053),
  AUTH_GRPC_ADDRESS: z.string().optional(),
  ACCOUNTS_GRPC_ADDRESS: z.string().optional(),
  WEBHOOKS_GRPC_ADDRESS: z.string().optional(),
  GRPC_DEADLINE_MS: envInt(5000, 50, 120000),
  // Optional mTLS between the gateway, the panel and the services (grpc-tls.ts): PEM file paths.
  GRPC_TLS_CA: z.string().optional(),
  GRPC_TLS_CERT: z.string().optional(),
  GRPC_TLS_KEY: z.string().optional(),
  // With mTLS: a second, plaintext port serving only grpc.health.v1 (kubelet's gRPC probes cannot
  // present a client certificate). Unset: none.
  GRPC_TLS_HEALTH_PORT: z.coerce.number().int().min(1).max(65535).optional(),
});

export interface ServiceAddresses {
  auth: string;
  accounts: string;
  webhooks: string;
  /** Set when GRPC_TLS_* configure mTLS: every client of these addresses presents it. */
  tls?: GrpcTls;
}

export function serviceAddresses(cfg: z.infer<typeof serviceAddressSchema>): ServiceAddresses {
  return {
    auth: cfg.AUTH_GRPC_ADDRESS ?? `127.0.0.1:${cfg.AUTH_GRPC_PORT}`,
    accounts: cfg.ACCOUNTS_GRPC_ADDRESS ?? `127.0.0.1:${cfg.ACCOUNTS_GRPC_PORT}`,
    webhooks: cfg.WEBHOOKS_GRPC_ADDRESS ?? `127.0.0.1:${cfg.WEBHOOKS_GRPC_PORT}`,
    tls: loadGrpcTls(cfg),
  };
}

/**
 * DATABASE_POOL_MAX caps each service's main PostgreSQL pool (its default is sized for production
 * load: auth 10, accounts 20, webhooks by its delivery concurrency). Many stacks sharing one
 * PostgreSQL (tests in parallel, small dev databases) set it lower to stay under max_connections.
 */
export const databasePoolSchema = z.object({
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).optional(),
});

/** A service's main pool size: its own default, capped by DATABASE_POOL_MAX. */
export function poolSize(defaultMax: number, cap: number | undefined): number {
  return cap === undefined ? defaultMax : Math.min(defaultMax, cap);
}

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
