import { requireText } from '@propdesk/kit';

export type PlanStatus = 'paid' | 'unpaid';

/** Exactly as sent (not trimmed); control characters and blank names refused. */
export function validOrganizationName(name: string): string {
  return requireText(name, 'name', { max: 200 });
}
