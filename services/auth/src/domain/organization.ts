import { AppError } from '@propdesk/kit';

export type PlanStatus = 'paid' | 'unpaid';

export function validOrganizationName(name: string): string {
  const trimmed = (name ?? '').trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw new AppError('invalid_request', 'name must be 1 to 200 characters', 'name');
  return trimmed;
}
