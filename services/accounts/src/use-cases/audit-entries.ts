import { createdFields, type AuditChange, type TenantScope } from '@propdesk/kit';
import type { Account, Trader } from '../domain/account';

/**
 * The audit entries of the accounts core's changes (SPEC 14), each written with recordAudit in
 * the change's transaction: target account (its number), trader (its id) or program (its name),
 * in the organization and mode of the object.
 */
export function accountAudit(scope: TenantScope, number: number, action: string, changes: Record<string, [unknown, unknown]> = {}): AuditChange {
  return { scope, action, target: { type: 'account', id: String(number) }, changes };
}

/** A provisioned account, as its account.create entry records it. */
export function createdAccountAudit(account: Account): AuditChange {
  return accountAudit({ organizationId: account.organizationId, livemode: account.livemode }, account.number, 'account.create', createdFields({
    status: account.status,
    program: account.program,
    program_version: account.programVersion,
    phase: account.phase.name,
    currency: account.currency,
    initial_balance: account.initialBalance,
    trader_id: account.traderId,
  }));
}

/** A trader created on the way (by a claim or an assignment, or on its own). */
export function createdTraderAudit(trader: Trader): AuditChange {
  return {
    scope: { organizationId: trader.organizationId, livemode: trader.livemode },
    action: 'trader.create',
    target: { type: 'trader', id: trader.id },
    changes: createdFields({ name: trader.name, email: trader.email }),
  };
}

export function programAudit(scope: TenantScope, name: string, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope, action, target: { type: 'program', id: name }, changes };
}
