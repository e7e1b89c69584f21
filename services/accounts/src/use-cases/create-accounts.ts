import { AppError, effectTransaction, recordAudits, type ScopeFields, type TenantScope, type Transaction } from '@propdesk/kit';
import { insertAccounts } from '../data/accounts';
import { appendEvents, type NewEvent } from '../data/outbox';
import { findTestClock } from '../data/test-clocks';
import { isTestClockId, requireTestMode } from '../domain/test-clock';
import { accountEventData, crossesCreditsLow, type Account } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import { initialBalance, provisioningCount, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { createdAccountAudit } from './audit-entries';
import { spendCredits, type Reservation } from './spend-credits';
import { phaseTerms, programForNewAccounts } from './programs';

export interface CreateAccountsInput extends ScopeFields {
  count: number;
  program?: string;
  initialBalance?: number;
  /** Test mode: the test clock the accounts live on (SPEC 13); empty or absent = none. */
  testClockId?: string;
}

/**
 * Provisions live accounts against the organization's credits (spend-credits.ts: reserved at
 * auth, the accounts and their events created in one transaction, then confirmed; cancelled if
 * the transaction fails). Test accounts are free (SPEC 13): one transaction, no credit, no
 * credits.low.
 */
export async function createAccounts(deps: AccountsDeps, input: CreateAccountsInput): Promise<Account[]> {
  const scope = tenantScope(input);
  const count = provisioningCount(input.count);
  const program = await programForNewAccounts(deps, scope, input.program);
  const terms = phaseTerms(program, 0);
  const balance = initialBalance(input.initialBalance, program.initialBalance);
  const clockId = input.testClockId ? input.testClockId : null;
  if (clockId !== null) requireTestMode(scope, 'accounts on a test clock');
  const { sequelize, secretBox } = deps;
  const provision = async (tx: Transaction, reservation: Reservation | null) => {
    if (clockId !== null) await requireUsableClock(deps, scope, clockId, tx);
    const sealedPasswords = Array.from({ length: count }, () => secretBox.seal(generateExecutorPassword()));
    const created = await insertAccounts(sequelize, tx, {
      ...scope,
      program: program.name,
      programVersion: program.version,
      phase: { index: 0, name: program.phases[0].name, kind: program.phases[0].kind },
      terms,
      currency: program.currency,
      initialBalance: balance,
      sealedPasswords,
      testClockId: clockId,
    });
    await deps.phaseStarts?.started(tx, created);
    const events: NewEvent[] = created.map((account) => ({ ...scope, type: 'account.created', data: accountEventData(account) }));
    if (reservation && crossesCreditsLow(reservation.remaining, reservation.threshold, count)) {
      events.push({ ...scope, type: 'credits.low', data: { remaining: reservation.remaining, threshold: reservation.threshold } });
    }
    await appendEvents(sequelize, tx, events);
    await recordAudits(tx, created.map(createdAccountAudit));
    return created;
  };
  if (!scope.livemode) return effectTransaction(sequelize, (tx) => provision(tx, null));
  return spendCredits(deps, scope.organizationId, count, provision);
}

/** The clock new accounts go on: of the scope and not deleted, kept so until the accounts commit; otherwise 400 naming test_clock. */
async function requireUsableClock(deps: AccountsDeps, scope: TenantScope, id: string, tx: Transaction): Promise<void> {
  const clock = isTestClockId(id) ? await findTestClock(deps.sequelize, scope, id, { transaction: tx, lock: 'share' }) : null;
  if (!clock) throw new AppError('invalid_request', 'test_clock names no test clock of this organization (unknown or deleted)', 'test_clock');
}
