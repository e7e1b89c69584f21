import { AppError, isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import { MAX_RESERVATION, parseCount } from '../domain/numbers';

export interface ReserveResult {
  remaining: string;
  creditsLowThreshold: string;
}

/**
 * Debits `count` credits under a caller-chosen reservation id, in one transaction: the id is
 * claimed first (a concurrent call with the same id waits for this one and then sees it), then
 * the conditional debit runs. A repeat answers what the first call answered.
 */
export async function reserveCredits(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations' | 'reservations'>,
  input: { organizationId: string; count: string; reservationId: string },
): Promise<ReserveResult> {
  const count = parseCount(input.count, 'count', 1n, MAX_RESERVATION);
  if (!isUuid(input.reservationId)) throw new AppError('invalid_request', 'reservation_id must be a uuid', 'reservation_id');
  if (!isUuid(input.organizationId)) throw notFound('organization');
  const reservationId = input.reservationId.toLowerCase();
  const organizationId = input.organizationId.toLowerCase();

  return deps.sequelize.transaction(async (transaction) => {
    const organization = await deps.organizations.findById(organizationId, transaction);
    if (!organization) throw notFound('organization');
    const claimed = await deps.reservations.claim({ id: reservationId, organizationId, count }, transaction);
    if (!claimed) {
      const existing = await deps.reservations.findById(reservationId, transaction);
      if (!existing || existing.organizationId !== organizationId || existing.count !== count) {
        throw new AppError('conflict', 'reservation_id is already used for another reservation', 'reservation_id');
      }
      return { remaining: existing.remainingAfter, creditsLowThreshold: organization.creditsLowThreshold };
    }
    const debited = await deps.organizations.debit(organizationId, count, transaction);
    if (!debited) throw new AppError('insufficient_credits', `not enough credits: ${count} needed, ${organization.credits} left`);
    await deps.reservations.setRemaining(reservationId, debited.credits, transaction);
    return { remaining: debited.credits, creditsLowThreshold: debited.creditsLowThreshold };
  });
}
