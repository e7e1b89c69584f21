import type { PropDesk } from '../client';
import type { Event, Schemas } from '../types';
import { eventually, NonConformance } from './runner';

type Delivery = Schemas['Delivery'];

const acknowledged = (d: Delivery) => d.response_status !== null && d.response_status >= 200 && d.response_status < 300;

/**
 * Every event of the run has a delivery to the run's endpoint that the integrator's receiver
 * answered with a 2xx, read from the delivery records (GET /v1/webhooks/{id}/deliveries). An
 * attempt answered otherwise (or failed) is a non-conformance at once; a delivery not attempted
 * yet is waited for. Returns how many events were acknowledged.
 */
export async function checkAcknowledged(pd: PropDesk, endpointId: string, events: readonly Event[], timeoutMs: number): Promise<number> {
  const expected = new Map(events.map((e) => [e.id, e]));
  let waitingFor: Event[] = [...expected.values()];
  return eventually(
    async () => {
      const records = await pd.listDeliveries(endpointId, { limit: 200 }).toArray();
      const byEvent = new Map<string, Delivery[]>();
      for (const record of records) byEvent.set(record.event_id, [...(byEvent.get(record.event_id) ?? []), record]);
      waitingFor = [];
      for (const event of expected.values()) {
        const deliveries = byEvent.get(event.id) ?? [];
        if (deliveries.some(acknowledged)) continue;
        const refused = deliveries.find((d) => d.response_status !== null || d.status === 'failed');
        if (refused) {
          const answer = refused.response_status !== null ? `HTTP ${refused.response_status}` : (refused.error ?? 'no answer');
          throw new NonConformance(`your receiver to acknowledge ${event.type} ${event.id} with a 2xx`, `${answer} (attempt ${refused.attempt}, delivery ${refused.id})`);
        }
        waitingFor.push(event);
      }
      return waitingFor.length === 0 ? expected.size : undefined;
    },
    timeoutMs,
    'a delivery of every event of the run, acknowledged',
    () => `no answer yet for ${waitingFor.length}: ${waitingFor.slice(0, 5).map((e) => `${e.type} ${e.id}`).join(', ')}`,
  );
}
