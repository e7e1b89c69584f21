import { scopeBind, selectOne, selectTogether, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';
import type { Account } from '../domain/account';
import { ACCOUNT_COLUMNS, toAccount, type AccountRow } from './accounts';
import { eventsOfRowsStatement, NOTIFY_COLUMN, ONE_EVENT_PER_ROW } from './outbox';
import { clockNowSql } from './test-clocks';

/**
 * SPEC 14's halts: an account's trading_halted with the reason and time (the account's: its test
 * clock's on one, SPEC 13), inside the caller's transaction (row locked); lifting it clears both.
 */
export async function writeHalt(sequelize: Sequelize, tx: Transaction, number: number, reason: string | null): Promise<Account> {
  const row = await selectOne<AccountRow>(
    sequelize,
    `UPDATE accounts SET trading_halted = $halted, halted_reason = $reason, halted_at = CASE WHEN $halted THEN ${clockNowSql('test_clock_id')} END,
           updated_at = now()
      WHERE number = $number RETURNING ${ACCOUNT_COLUMNS}`,
    { number, halted: reason !== null, reason },
    tx,
  );
  if (!row) throw new Error('account vanished under its lock');
  return toAccount(row);
}

/** Which accounts of a program a program-wide halt takes: those that trade, or may again once reinstated. */
const HALTABLE = `status IN ('active', 'breached') AND NOT trading_halted`;

/**
 * Halts (reason given) or resumes (null) every account of a program in the scope, set-based: one
 * UPDATE through (organization_id, livemode, program), and one INSERT of an event per account it
 * changed (account.halted {account, reason} / account.resumed {account}), in account-number order,
 * both in one statement; the UPDATE moves each account's event counter, so each event takes its
 * account's next sequence number (SPEC 17). Answers how many accounts it changed; accounts already in that state are
 * left as they are.
 */
export async function haltProgramAccounts(sequelize: Sequelize, tx: Transaction, scope: TenantScope, program: string, reason: string | null): Promise<number> {
  const halting = reason !== null;
  const changed = {
    name: 'changed',
    sql: `UPDATE accounts SET trading_halted = $halted, halted_reason = $reason, halted_at = CASE WHEN $halted THEN ${clockNowSql('test_clock_id')} END,
               updated_at = now(), ${ONE_EVENT_PER_ROW.set}
           WHERE organization_id = $org AND livemode = $livemode AND program = $program AND ${halting ? HALTABLE : 'trading_halted'}
       RETURNING ${ONE_EVENT_PER_ROW.returning}`,
    bind: { ...scopeBind(scope), program, halted: halting, reason },
  };
  const events = halting
    ? eventsOfRowsStatement(scope, 'account.halted', 'changed', { fields: { account: 'number', reason: '$reason::text' }, bind: { reason } }, 'number')
    : eventsOfRowsStatement(scope, 'account.resumed', 'changed', { fields: { account: 'number' } }, 'number');
  const rows = await selectTogether<{ n: number }>(sequelize, [changed, events], `SELECT (SELECT count(*)::int FROM changed) AS n, ${NOTIFY_COLUMN}`, tx);
  return rows[0]?.n ?? 0;
}
