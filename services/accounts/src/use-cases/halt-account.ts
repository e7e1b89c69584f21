import { AppError, effectTransaction, recordAudit, requireText, typedEvent, type ScopeFields, type TenantScope } from '@propdesk/kit';
import { findAccount } from '../data/accounts';
import { writeHalt } from '../data/halts';
import { appendEvent } from '../data/outbox';
import { accountNotFound, refuseStatus, type Account } from '../domain/account';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** Every `reason` of SPEC 14 is required free text of at most this many characters. */
export const MAX_REASON_LENGTH = 500;

/** The reason of an operator's action: required, the kit's text rules. */
export function operatorReason(value: unknown): string {
  return requireText(value, 'reason', { max: MAX_REASON_LENGTH });
}

/**
 * HaltAccount (POST .../halt {reason}, SPEC 14): new orders are refused (rule halted) until it is
 * resumed; open positions stay, and the engine evaluates the account as before. An account that
 * trades, or may again once reinstated (active, breached), can be halted; an already halted one
 * is conflict, a passed or archived one refused with its status's code. One transaction with
 * account.halted.
 */
export async function haltAccount(deps: AccountsDeps, input: ScopeFields & { number: string; reason: string }): Promise<Account> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const reason = operatorReason(input.reason);
  return changeHalt(deps, scope, number, (account) => {
    refuseStatus(account, ['passed', 'archived'], 'does not trade any more: there is nothing to halt');
    if (account.tradingHalted) throw new AppError('conflict', `account ${number} is already halted`);
    return reason;
  });
}

/** ResumeAccount (POST .../resume): lifts a halt; an account that is not halted is conflict. account.resumed. */
export async function resumeAccount(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Account> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  return changeHalt(deps, scope, number, (account) => {
    if (!account.tradingHalted) throw new AppError('conflict', `account ${number} is not halted`);
    return null;
  });
}

/** Under the account's row lock: `decide` refuses (nothing changed) or gives the reason to halt for (null: resume). */
async function changeHalt(deps: AccountsDeps, scope: TenantScope, number: number, decide: (account: Account) => string | null): Promise<Account> {
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (tx) => {
    const account = await findAccount(sequelize, scope, number, { transaction: tx, forUpdate: true });
    if (!account) throw accountNotFound();
    const reason = decide(account);
    const updated = await writeHalt(sequelize, tx, number, reason);
    await appendEvent(sequelize, tx, {
      ...scope,
      ...(reason === null ? typedEvent('account.resumed', { account: number }) : typedEvent('account.halted', { account: number, reason })),
    });
    await recordAudit(tx, {
      scope,
      action: reason === null ? 'account.resume' : 'account.halt',
      target: { type: 'account', id: String(number) },
      changes: { trading_halted: [account.tradingHalted, updated.tradingHalted], ...(reason === null ? {} : { reason: [null, reason] }) },
    });
    return updated;
  });
}
