import type { Express } from 'express';
import { AppError } from '@propdesk/kit';
import type { HealthCheckers } from '../clients';
import { renderError, renderJson, send } from '../http/errors';
import type { HttpMetrics } from '../http/metrics';
import { z } from '../http/zod';

const HEALTH_DEADLINE_MS = 1000;

export const healthSchema = z
  .object({
    status: z.literal('ok'),
    services: z.object({ auth: z.literal('serving'), accounts: z.literal('serving'), webhooks: z.literal('serving') }).strict(),
  })
  .strict()
  .openapi('Health');

export function registerHealthRoutes(app: Express, health: HealthCheckers, metrics: HttpMetrics): void {
  app.get('/healthz', async (_req, res) => {
    const results = await health.checkAll(HEALTH_DEADLINE_MS);
    const down = (Object.keys(results) as Array<keyof typeof results>).filter((name) => !results[name]);
    if (down.length > 0) {
      send(res, renderError(new AppError('unavailable', `not serving: ${down.join(', ')}`)));
      return;
    }
    send(res, renderJson(200, { status: 'ok', services: { auth: 'serving', accounts: 'serving', webhooks: 'serving' } }));
  });

  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
}
