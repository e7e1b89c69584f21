import { AppError, effectTransaction, PROGRAM_NAME_PATTERN, recordAudit, type ScopeFields, type TenantScope } from '@propdesk/kit';
import { haltProgramAccounts } from '../data/halts';
import { findProgram } from '../data/programs';
import { isProgramName } from '../domain/programs';
import { tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { operatorReason } from './halt-account';

export interface ProgramHalt {
  program: string;
  /** The accounts it changed. */
  accounts: number;
}

/**
 * HaltProgram (POST /v1/programs/{name}/halt {reason}, SPEC 14): every account of the program in
 * the scope that trades or may again (active, breached) and is not halted yet is halted, each with
 * its account.halted, in one transaction of two set-based statements, however many accounts.
 * A built-in or any program of the organization in this mode, archived ones included; another
 * name is not_found.
 */
export async function haltProgram(deps: AccountsDeps, input: ScopeFields & { name: string; reason: string }): Promise<ProgramHalt> {
  const scope = tenantScope(input);
  const reason = operatorReason(input.reason);
  return changeProgramHalt(deps, scope, input.name, reason);
}

/** ResumeProgram (POST /v1/programs/{name}/resume): every halted account of the program, each with its account.resumed. */
export async function resumeProgram(deps: AccountsDeps, input: ScopeFields & { name: string }): Promise<ProgramHalt> {
  return changeProgramHalt(deps, tenantScope(input), input.name, null);
}

async function changeProgramHalt(deps: AccountsDeps, scope: TenantScope, name: string, reason: string | null): Promise<ProgramHalt> {
  const { sequelize } = deps;
  const known = isProgramName(name) || (PROGRAM_NAME_PATTERN.test(name) && (await findProgram(sequelize, scope, name, null)) !== null);
  if (!known) throw new AppError('not_found', 'program not found');
  return effectTransaction(sequelize, async (tx) => {
    const accounts = await haltProgramAccounts(sequelize, tx, scope, name, reason);
    // One entry for the program's halt (however many accounts it took: each has its own
    // account.halted or account.resumed event in its timeline); none when it changed no account.
    if (accounts > 0) {
      await recordAudit(tx, {
        scope,
        action: reason === null ? 'program.resume' : 'program.halt',
        target: { type: 'program', id: name },
        changes: { trading_halted: [reason === null, reason !== null], accounts: [0, accounts], ...(reason === null ? {} : { reason: [null, reason] }) },
      });
    }
    return { program: name, accounts };
  });
}
