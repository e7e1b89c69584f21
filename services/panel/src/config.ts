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
  /** Listen address; unset = GRPC_HOST, the address every other service of this stack listens on. */
  PANEL_HOST: z.string().min(1).optional(),
  PANEL_TRUST_PROXY: trustProxy,
  LOG_LEVEL: logLevel,
  /** GET /metrics (process RSS, event-loop delay) on this port; unset: none. */
  PANEL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type PanelConfig = z.infer<typeof panelConfigSchema>;
