import { AppError, effectTransaction, isUuid, recordAudit, requireText, type ScopeFields } from '@propdesk/kit';
import { lockTrader, writeTraderKyc } from '../data/traders';
import type { KycStatus, Trader } from '../domain/account';
import { tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** A KYC reference (the firm's provider's case id) is free text of at most this many characters. */
export const MAX_KYC_REFERENCE_LENGTH = 200;

/**
 * SetTraderKyc (POST /v1/traders/{id}/kyc {status, reference?}, SPEC 14): the firm records the
 * outcome of its KYC check; a funded phase with requires_kyc pays out only to a verified trader.
 * Each decision carries its own reference (none given: none kept). Another organization's or the
 * other mode's trader is not_found.
 */
export async function setTraderKyc(
  deps: AccountsDeps,
  input: ScopeFields & { traderId: string; status: KycStatus; reference?: string },
): Promise<Trader> {
  const scope = tenantScope(input);
  const reference = input.reference === undefined ? null : requireText(input.reference, 'reference', { max: MAX_KYC_REFERENCE_LENGTH });
  if (!isUuid(input.traderId)) throw new AppError('not_found', 'trader not found');
  const id = input.traderId.toLowerCase();
  return effectTransaction(deps.sequelize, async (tx) => {
    const before = await lockTrader(deps.sequelize, scope, id, tx);
    if (!before) throw new AppError('not_found', 'trader not found');
    const after = await writeTraderKyc(deps.sequelize, tx, id, input.status, reference);
    await recordAudit(tx, {
      scope,
      action: 'trader.kyc',
      target: { type: 'trader', id },
      changes: { kyc_status: [before.kycStatus, after.kycStatus], kyc_reference: [before.kycReference, after.kycReference] },
    });
    return after;
  });
}
