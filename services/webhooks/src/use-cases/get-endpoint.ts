import { notFound } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { requireOrganization } from './require-organization';

export async function getEndpoint(deps: Deps, input: { organizationId: string; endpointId: string }): Promise<EndpointRecord> {
  const endpoint = await deps.endpoints.find(requireOrganization(input.organizationId), input.endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}
