import { AppError, isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';

export async function confirmCreditReservation(deps: Pick<AuthDeps, 'reservations'>, reservationId: string): Promise<void> {
  if (!isUuid(reservationId)) throw notFound('reservation');
  const confirmed = await deps.reservations.confirm(reservationId.toLowerCase());
  if (confirmed) return;
  const existing = await deps.reservations.findById(reservationId.toLowerCase());
  if (!existing) throw notFound('reservation');
  throw new AppError('conflict', 'the reservation was cancelled');
}
