import { AppError } from '@propdesk/kit';
import { findUnresolvedIntents, transitionIntent } from '../data/provisioning-intents';
import type { AccountsDeps } from '../deps';

/**
 * Gives the credits of a reservation back: pending -> aborting (so the provisioning
 * transaction can no longer mark it done), cancel at auth, then aborted. A failed cancel
 * leaves it aborting, and the recovery loop retries.
 */
export async function abortIntent(deps: AccountsDeps, reservationId: string): Promise<boolean> {
  const { sequelize, authApi } = deps;
  await transitionIntent(sequelize, reservationId, ['pending'], 'aborting');
  try {
    await authApi.cancelCreditReservation({ reservationId });
  } catch (err) {
    // Cancel of a reservation auth never made is as good as done.
    if (!(err instanceof AppError && err.code === 'not_found')) throw err;
  }
  return transitionIntent(sequelize, reservationId, ['aborting'], 'aborted');
}

export interface RecoveryResult {
  aborted: number;
  confirmed: number;
  failed: number;
}

/**
 * Resolves intents older than PROVISIONING_STALE_AFTER_MS: pending ones never got their
 * accounts (done is written in the accounts' own transaction), so their reservation is
 * cancelled; done ones are confirmed; aborting ones get their cancel retried.
 */
export async function recoverProvisioning(deps: AccountsDeps): Promise<RecoveryResult> {
  const result: RecoveryResult = { aborted: 0, confirmed: 0, failed: 0 };
  const intents = await findUnresolvedIntents(deps.sequelize, deps.config.PROVISIONING_STALE_AFTER_MS);
  for (const intent of intents) {
    try {
      if (intent.status === 'done') {
        await deps.authApi.confirmCreditReservation({ reservationId: intent.id });
        await transitionIntent(deps.sequelize, intent.id, ['done'], 'confirmed');
        result.confirmed += 1;
      } else {
        await abortIntent(deps, intent.id);
        result.aborted += 1;
      }
    } catch (err) {
      result.failed += 1;
      deps.logger.warn({ reservationId: intent.id, status: intent.status, err: (err as Error).message }, 'provisioning recovery step failed');
    }
  }
  if (result.aborted + result.confirmed > 0) deps.logger.info(result, 'provisioning intents recovered');
  return result;
}
