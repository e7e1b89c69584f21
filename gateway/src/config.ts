import { envInt, logLevel, port, serviceAddressSchema, z } from '@propdesk/kit';

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
  REDIS_URL: z.string().optional(),
  TRUST_PROXY: trustProxy,
  RATE_LIMIT_READ_PER_MIN: envInt(1200, 1),
  RATE_LIMIT_WRITE_PER_MIN: envInt(120, 1),
  RATE_LIMIT_IP_PER_MIN: envInt(60, 1),
  LOG_LEVEL: logLevel,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function panelUrl(config: GatewayConfig): string {
  return config.PANEL_URL ?? `http://127.0.0.1:${config.PANEL_PORT}`;
}
