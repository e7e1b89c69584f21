import { logLevel, port, serviceAddressSchema, z } from '@propdesk/kit';
import { limitsConfigSchema } from './limits';

/** Express "trust proxy" accepts a boolean, a hop count or a list of addresses/subnets. */
const trustProxy = z
  .string()
  .optional()
  .transform((value): boolean | number | string => {
    if (value === undefined || value === '' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    return value;
  });

export const gatewayConfigSchema = serviceAddressSchema.extend({
  PORT: port(8080),
  PANEL_PORT: port(8090),
  PANEL_URL: z.string().url().optional(),
  TRUST_PROXY: trustProxy,
  /** Prefix of the Redis rate-limit keys; tests sharing one Redis use a unique one per stack. */
  RATE_LIMIT_KEY_PREFIX: z.string().min(1).max(64).optional(),
  LOG_LEVEL: logLevel,
}).merge(limitsConfigSchema);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function panelUrl(config: GatewayConfig): string {
  return config.PANEL_URL ?? `http://127.0.0.1:${config.PANEL_PORT}`;
}
