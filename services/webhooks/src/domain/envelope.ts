export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  /** SPEC 13: false for an event of test mode. */
  livemode: boolean;
  /** SPEC 17: the event's place in its account's events; null for an event about no account (and a test event). */
  sequence: number | null;
  data: Record<string, unknown>;
}

/** The exact bytes sent on every attempt: serialised once, stored, never rebuilt. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify({
    id: envelope.id,
    type: envelope.type,
    created_at: envelope.created_at,
    organization_id: envelope.organization_id,
    livemode: envelope.livemode,
    sequence: envelope.sequence,
    data: envelope.data,
  });
}

export { SAMPLE_ACCOUNT, sampleData } from './samples';
