import { AppError, isUuid } from '@propdesk/kit';
import type { AuthDeps } from '../deps';

/**
 * Gives a reserved count back exactly once (the row is locked, so concurrent cancels serialize).
 * An unknown reservation is a no-op answering remaining "0": the caller cancels on failure paths
 * where the reserve may never have arrived.
 */
export async function cancelCreditReservation(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations' | 'reservations'>,
  reservationId: string,
): Promise<{ remaining: string }> {
  if (!isUuid(reservationId)) return { remaining: '0' };
  const id = reservationId.toLowerCase();
  return deps.sequelize.transaction(async (transaction) => {
    const reservation = await deps.reservations.findById(id, transaction, true);
    if (!reservation) return { remaining: '0' };
    if (reservation.status === 'confirmed') throw new AppError('conflict', 'the reservation is already confirmed');
    if (reservation.status === 'cancelled') {
      const organization = await deps.organizations.findById(reservation.organizationId, transaction);
      return { remaining: organization?.credits ?? '0' };
    }
    await deps.reservations.setStatus(id, 'cancelled', transaction);
    const remaining = await deps.organizations.credit(reservation.organizationId, reservation.count, transaction);
    return { remaining };
  });
}
