import { notFound, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { requireScope } from './require-scope';

export async function getEndpoint(deps: Deps, input: ScopeFields & { endpointId: string }): Promise<EndpointRecord> {
  const endpoint = await deps.endpoints.find(requireScope(input), input.endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}
