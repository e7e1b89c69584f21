import { insertAccounts } from '../data/accounts';
import { appendEvents, type NewEvent } from '../data/outbox';
import { accountEventData, crossesCreditsLow, type Account } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import { initialBalance, organizationId, provisioningCount } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { spendCredits } from './spend-credits';
import { phaseTerms, programForNewAccounts } from './programs';

export interface CreateAccountsInput {
  organizationId: string;
  count: number;
  program?: string;
  initialBalance?: number;
}

/**
 * Provisions accounts against the organization's credits (spend-credits.ts: reserved at auth,
 * the accounts and their events created in one transaction, then confirmed; cancelled if the
 * transaction fails).
 */
export async function createAccounts(deps: AccountsDeps, input: CreateAccountsInput): Promise<Account[]> {
  const org = organizationId(input.organizationId);
  const count = provisioningCount(input.count);
  const program = await programForNewAccounts(deps, org, input.program);
  const terms = phaseTerms(program, 0);
  const balance = initialBalance(input.initialBalance, program.initialBalance);
  const { sequelize, secretBox } = deps;
  return spendCredits(deps, org, count, async (tx, reservation) => {
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
}
