import { randomUUID } from 'node:crypto';
import { AppError, effectTransaction, type Transaction } from '@propdesk/kit';
import { insertIntent, transitionIntent } from '../data/provisioning-intents';
import type { AccountsDeps } from '../deps';
import { abortIntent } from './recover-provisioning';

/** What auth answered when it reserved the credits (credits.low is decided from it). */
export interface Reservation {
  remaining: number;
  threshold: number;
}

/**
 * Spends `count` of the organization's credits (which the auth service owns) on `work`:
 *   1. a provisioning intent (id = reservation id) commits on its own;
 *   2. auth reserves (debits) the credits; short -> insufficient_credits, nothing done;
 *   3. one transaction marks the intent done (its first statement) and runs `work`;
 *   4. auth confirms the reservation.
 * If 3 fails (work refused, or anything else) the reservation is cancelled. A crash between steps
 * leaves an intent that the recovery loop resolves (cancel when still pending, confirm when
 * done), so credits are never spent without the work, nor the work done without the credits.
 */
export async function spendCredits<T>(
  deps: AccountsDeps,
  org: string,
  count: number,
  work: (tx: Transaction, reservation: Reservation) => Promise<T>,
): Promise<T> {
  const { sequelize, authApi, logger } = deps;
  const reservationId = randomUUID();
  await insertIntent(sequelize, reservationId, org, count);

  let reservation: Reservation;
  try {
    const reserved = await authApi.reserveCredits({ organizationId: org, count: String(count), reservationId });
    reservation = { remaining: Number(reserved.remaining), threshold: Number(reserved.creditsLowThreshold) };
  } catch (err) {
    if (err instanceof AppError && (err.code === 'insufficient_credits' || err.code === 'not_found' || err.code === 'invalid_request')) {
      // Refused outright: nothing was debited.
      await transitionIntent(sequelize, reservationId, ['pending'], 'aborted');
    } else {
      // The reservation may have happened before the call failed: cancel it (or leave it to recovery).
      await abortIntent(deps, reservationId).catch(() => undefined);
    }
    throw err;
  }

  let result: T;
  try {
    result = await effectTransaction(sequelize, async (tx) => {
      // First statement: the row lock makes a concurrent recovery pass wait for this outcome.
      if (!(await transitionIntent(sequelize, reservationId, ['pending'], 'done', tx))) {
        throw new AppError('unavailable', 'provisioning timed out, try again');
      }
      return work(tx, reservation);
    });
  } catch (err) {
    await abortIntent(deps, reservationId).catch((cancelErr: unknown) =>
      logger.warn({ reservationId, err: (cancelErr as Error).message }, 'could not cancel credit reservation; recovery will retry'),
    );
    throw err;
  }

  try {
    await authApi.confirmCreditReservation({ reservationId });
    await transitionIntent(sequelize, reservationId, ['done'], 'confirmed');
  } catch (err) {
    // The work is committed and the credits are debited; only the confirmation is missing.
    logger.warn({ reservationId, err: (err as Error).message }, 'credit confirmation failed; recovery will retry');
  }
  return result;
}
