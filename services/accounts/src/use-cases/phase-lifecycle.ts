import { AppError, effectTransaction, type TenantScope, type Transaction } from '@propdesk/kit';
import { insertAccounts } from '../data/accounts';
import type { NewEvent } from '../data/outbox';
import { accountEventData, scopeOfAccount, type Account } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import type { AccountsDeps } from '../deps';
import { phaseTerms, programVersion, type ProgramForAccounts } from './programs';
import { spendCredits, type Reservation } from './spend-credits';

/**
 * What the trading module needs of the core for the challenge lifecycle (SPEC 10), handed to it
 * by main.ts through the port: provisioning the next phase's account inside a pass's transaction,
 * and spending a credit on a reset. The next account is of its predecessor's organization and mode.
 */
export interface PhaseLifecycle {
  /**
   * Inside the pass's transaction (row locked): the next phase's account of the same program
   * version, trader (assigned), initial balance and currency, a new executor password, no credit;
   * it names the passed account (previous_account, unique: one next account per pass whatever the
   * replicas); the caller links the passed row to it (next_account) in the write that sets its
   * status. Its events (account.created, account.assigned) are returned for the caller
   * to append after account.passed. null when the phase is the program's last or not an evaluation.
   */
  provisionNextPhase(tx: Transaction, account: Account): Promise<{ next: Account; events: NewEvent[] } | null>;
  /**
   * Runs `work` in a transaction that spends one of the organization's credits (402
   * insufficient_credits: nothing runs); in test mode, in a transaction that spends none (SPEC 13).
   */
  withOneCredit<T>(scope: TenantScope, work: (tx: Transaction, reservation: Reservation | null) => Promise<T>): Promise<T>;
}

/** Program versions held in memory: a version is never changed once written, so it never goes stale. */
const CACHED_VERSIONS = 1000;

export function createPhaseLifecycle(deps: AccountsDeps): PhaseLifecycle {
  const versions = new Map<string, ProgramForAccounts>();
  const versionOf = async (scope: TenantScope, name: string, version: number): Promise<ProgramForAccounts | null> => {
    const key = `${scope.organizationId}\u0000${scope.livemode}\u0000${name}\u0000${version}`;
    const known = versions.get(key);
    if (known) return known;
    const found = await programVersion(deps, scope, name, version);
    if (found) {
      if (versions.size >= CACHED_VERSIONS) versions.clear();
      versions.set(key, found);
    }
    return found;
  };
  return {
    async provisionNextPhase(tx, account) {
      if (account.phase.kind !== 'evaluation') return null;
      const scope = scopeOfAccount(account);
      const program = await versionOf(scope, account.program, account.programVersion);
      const index = account.phase.index + 1;
      if (!program || index >= program.phases.length) return null;
      const phase = program.phases[index];
      const [next] = await insertAccounts(deps.sequelize, tx, {
        ...scope,
        program: account.program,
        programVersion: account.programVersion,
        phase: { index, name: phase.name, kind: phase.kind },
        terms: phaseTerms(program, index),
        currency: account.currency,
        initialBalance: account.initialBalance,
        sealedPasswords: [deps.secretBox.seal(generateExecutorPassword())],
        traderId: account.traderId,
        previousAccount: account.number,
        // On a test clock, the next phase lives on it too (SPEC 13).
        testClockId: account.testClockId,
      });
      if (!next) throw new AppError('internal_error', 'the next phase account was not created');
      await deps.phaseStarts?.started(tx, [next]);
      const events: NewEvent[] = [{ ...scope, type: 'account.created', data: accountEventData(next) }];
      if (next.traderId !== null) {
        events.push({ ...scope, type: 'account.assigned', data: { account: next.number, trader_id: next.traderId, previous_trader_id: null } });
      }
      return { next, events };
    },
    withOneCredit(scope, work) {
      if (!scope.livemode) return effectTransaction(deps.sequelize, (tx) => work(tx, null));
      return spendCredits(deps, scope.organizationId, 1, work);
    },
  };
}
