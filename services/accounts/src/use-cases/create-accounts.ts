import { randomUUID } from 'node:crypto';
import { AppError } from '@propdesk/kit';
import { insertAccounts } from '../data/accounts';
import { insertIntent, transitionIntent } from '../data/provisioning-intents';
import { appendEvents, type NewEvent } from '../data/outbox';
import { accountEventData, crossesCreditsLow, type Account } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import { initialBalance, organizationId, provisioningCount } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { abortIntent } from './recover-provisioning';
import { phaseTerms, programForNewAccounts } from './programs';

export interface CreateAccountsInput {
  organizationId: string;
  count: number;
  program?: string;
  initialBalance?: number;
}

/**
 * Provisions accounts against the organization's credits, which the auth service owns:
 *   1. a provisioning intent (id = reservation id) commits on its own;
 *   2. auth reserves (debits) the credits; short -> insufficient_credits, nothing created;
 *   3. one transaction creates the accounts and their events and marks the intent done;
 *   4. auth confirms the reservation.
 * If 3 fails the reservation is cancelled. A crash between steps leaves an intent that the
 * recovery loop resolves (cancel when still pending, confirm when done), so credits are never
 * spent without accounts.
 */
export async function createAccounts(deps: AccountsDeps, input: CreateAccountsInput): Promise<Account[]> {
  const org = organizationId(input.organizationId);
  const count = provisioningCount(input.count);
  const program = await programForNewAccounts(deps, org, input.program);
  const terms = phaseTerms(program, 0);
  const balance = initialBalance(input.initialBalance, program.initialBalance);
  const { sequelize, secretBox, authApi, logger } = deps;

  const reservationId = randomUUID();
  await insertIntent(sequelize, reservationId, org, count);

  let reservation: { remaining: number; threshold: number };
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

  let accounts: Account[];
  try {
    accounts = await sequelize.transaction(async (tx) => {
      // First statement: the row lock makes a concurrent recovery pass wait for this outcome.
      if (!(await transitionIntent(sequelize, reservationId, ['pending'], 'done', tx))) {
        throw new AppError('unavailable', 'provisioning timed out, try again');
      }
      const sealedPasswords = Array.from({ length: count }, () => secretBox.seal(generateExecutorPassword()));
      const created = await insertAccounts(sequelize, tx, {
        organizationId: org,
        program: program.name,
        programVersion: program.version,
        phase: { index: 0, name: program.phases[0].name, kind: program.phases[0].kind },
        terms,
        currency: program.currency,
        initialBalance: balance,
        sealedPasswords,
      });
      const events: NewEvent[] = created.map((account) => ({ organizationId: org, type: 'account.created', data: accountEventData(account) }));
      if (crossesCreditsLow(reservation.remaining, reservation.threshold, count)) {
        events.push({ organizationId: org, type: 'credits.low', data: { remaining: reservation.remaining, threshold: reservation.threshold } });
      }
      await appendEvents(sequelize, tx, events);
      return created;
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
    // The accounts exist and the credits are debited; only the confirmation is missing.
    logger.warn({ reservationId, err: (err as Error).message }, 'credit confirmation failed; recovery will retry');
  }
  return accounts;
}
