import { logLevel, port, serviceAddressSchema, z } from '@propdesk/kit';

/**
 * Express "trust proxy": true/false, a hop count, or addresses/subnets/names ("loopback",
 * "10.0.0.0/8, uniquelocal"). Default loopback, because the gateway proxies the panel locally.
 */
const trustProxy = z
  .string()
  .trim()
  .min(1)
  .default('loopback')
  .transform((value): boolean | number | string => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value);
    return value;
  });

export const panelConfigSchema = serviceAddressSchema.extend({
  PANEL_PORT: port(8090),
  PANEL_HOST: z.string().default('127.0.0.1'),
  PANEL_TRUST_PROXY: trustProxy,
  LOG_LEVEL: logLevel,
});

export type PanelConfig = z.infer<typeof panelConfigSchema>;
