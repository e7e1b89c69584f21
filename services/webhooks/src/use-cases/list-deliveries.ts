import { AppError, cursorScope, notFound, pageSize, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { DeliveryRecord, DeliveryState } from '../data/deliveries-repository';
import { isEventType } from '../domain/event-types';
import { requireScope } from './require-scope';

export type DeliveryStatusFilter = 'pending' | 'succeeded' | 'failed';

/** A skipped delivery (endpoint disabled or deleted) is reported as failed. */
const STATES_OF: Record<DeliveryStatusFilter, DeliveryState[]> = {
  pending: ['pending'],
  succeeded: ['succeeded'],
  failed: ['failed', 'skipped'],
};

export async function listDeliveries(
  deps: Deps,
  input: ScopeFields & { endpointId: string; pageSize?: number; pageToken?: string; status?: DeliveryStatusFilter; eventType?: string },
): Promise<{ deliveries: DeliveryRecord[]; nextPageToken: string }> {
  const scope = requireScope(input);
  const limit = pageSize(input.pageSize);
  if (input.eventType && !isEventType(input.eventType)) {
    throw new AppError('invalid_request', `unknown event type: ${input.eventType}`, 'event_type');
  }
  const endpoint = await deps.endpoints.find(scope, input.endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  const cursor = `deliveries:${cursorScope(scope)}:${endpoint.id}:${input.status ?? ''}:${input.eventType ?? ''}`;
  const before = input.pageToken ? Number(deps.cursors.decode<{ s: number }>(cursor, input.pageToken).s) || 0 : 0;
  const rows = await deps.deliveries.list(
    endpoint.id,
    { states: input.status ? STATES_OF[input.status] : undefined, eventType: input.eventType || undefined },
    before,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? deps.cursors.encode(cursor, { s: page[page.length - 1].seq }) : '';
  return { deliveries: page, nextPageToken };
}
