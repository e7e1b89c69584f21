import { auditStatement, effectTransaction, executeTogether, type ScopeFields } from '@propdesk/kit';
import { findAccount, findSealedPassword, setSealedPassword } from '../data/accounts';
import { revokeSessionsStatement } from '../data/executor-sessions';
import { accountNotFound } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { accountAudit } from './audit-entries';

export interface Credentials {
  login: number;
  password: string;
  server: string;
}

/** Works whether or not the account is assigned. */
export async function getCredentials(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Credentials> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const sealed = await findSealedPassword(deps.sequelize, scope, number);
  if (sealed === null) throw accountNotFound();
  return { login: number, password: deps.secretBox.open(sealed), server: deps.config.EXECUTOR_SERVER };
}

/** A new password; the account's live sessions end in the same transaction. */
export async function rotateCredentials(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Credentials> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const { sequelize } = deps;
  const password = generateExecutorPassword();
  // The answer (the new password) is what the transaction returns: a retry with the same
  // Idempotency-Key replays it instead of rotating again.
  return effectTransaction(sequelize, async (transaction) => {
    const account = await findAccount(sequelize, scope, number, { transaction, forUpdate: true });
    if (!account) throw accountNotFound();
    await setSealedPassword(sequelize, transaction, number, deps.secretBox.seal(password));
    // The sessions end and the audit entry is written in one statement. What changed is the
    // password itself: the entry says that it was rotated, never to what.
    const entry = auditStatement(accountAudit(scope, number, 'account.rotate_credentials'));
    await executeTogether(sequelize, [revokeSessionsStatement(number), ...(entry ? [entry] : [])], transaction);
    return { login: number, password, server: deps.config.EXECUTOR_SERVER };
  });
}
