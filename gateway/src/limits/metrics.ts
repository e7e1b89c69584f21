import { Counter, Gauge, type Registry } from 'prom-client';

export interface LimitsMetrics {
  degraded: Gauge;
  fallbacks: Counter;
  refused: Counter<'bucket'>;
}

/** Without a registry the metrics still work, they are just not exported. */
export function createLimitsMetrics(registry?: Registry): LimitsMetrics {
  const registers = registry ? [registry] : [];
  return {
    degraded: new Gauge({
      name: 'propdesk_rate_limit_degraded',
      help: '1 while Redis is unreachable and the in-process insurance limiter answers',
      registers,
    }),
    fallbacks: new Counter({
      name: 'propdesk_rate_limit_fallbacks_total',
      help: 'Limit checks answered by the in-process insurance limiter because Redis failed',
      registers,
    }),
    refused: new Counter({
      name: 'propdesk_rate_limit_refused_total',
      help: 'Requests refused by a rate limit, by bucket',
      labelNames: ['bucket'],
      registers,
    }),
  };
}
