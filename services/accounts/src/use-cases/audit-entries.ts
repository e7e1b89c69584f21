import { createdFields, type AuditChange, type TenantScope } from '@propdesk/kit';
import type { Account, Trader } from '../domain/account';
import { shownFrozenTime, type TestClock } from '../domain/test-clock';

/**
 * The audit entries of the accounts core's changes (SPEC 14), each written with recordAudit in
 * the change's transaction: target account (its number), trader (its id), program (its name) or
 * test_clock (its id), in the organization and mode of the object.
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
    test_clock: account.testClockId,
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

/** A test clock's change (SPEC 13); its frozen_time as REST shows it (while advancing, where it goes). */
export function testClockAudit(clock: TestClock, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope: { organizationId: clock.organizationId, livemode: clock.livemode }, action, target: { type: 'test_clock', id: clock.id }, changes };
}

/** The fields of a clock an entry records, as REST names them. */
export function testClockFields(clock: TestClock): Record<string, unknown> {
  return { name: clock.name, frozen_time: shownFrozenTime(clock), status: clock.status };
}
