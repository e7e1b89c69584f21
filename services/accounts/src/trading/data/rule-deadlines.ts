import { execute, selectOne, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { LockRule } from '@propdesk/kit';

/** The time rules of SPEC 15 that act at a moment of their own (rule_deadlines.rule). */
export type DeadlineRule = 'time_limit' | 'inactivity' | 'session_end' | 'lock_expiry';

export interface Deadline {
  accountNumber: number;
  rule: DeadlineRule;
  dueAt: Date;
}

/** A deadline to keep, with the account's test clock (null: the live market's scheduler takes it). */
export interface NewDeadline extends Deadline {
  testClockId: string | null;
}

interface DeadlineRow {
  account_number: string;
  rule: DeadlineRule;
  due_at: Date;
}

const toDeadline = (r: DeadlineRow): Deadline => ({ accountNumber: toNumber(r.account_number), rule: r.rule, dueAt: r.due_at });

/**
 * Keeps deadlines in one statement: `replace` moves an existing one of the same account and rule
 * to the new moment (a phase or attempt begins), `earliest` keeps the sooner of the two (a session
 * end asked for again by the next order).
 */
export async function keepDeadlines(sequelize: Sequelize, tx: Transaction, deadlines: readonly NewDeadline[], mode: 'replace' | 'earliest' = 'replace'): Promise<void> {
  if (deadlines.length === 0) return;
  await execute(
    sequelize,
    `INSERT INTO rule_deadlines (account_number, rule, due_at, test_clock_id)
     SELECT * FROM unnest($numbers::bigint[], $rules::text[], $dues::timestamptz[], $clocks::text[])
     ON CONFLICT (account_number, rule) DO UPDATE SET due_at = ${mode === 'replace' ? 'EXCLUDED.due_at' : 'LEAST(rule_deadlines.due_at, EXCLUDED.due_at)'}`,
    {
      numbers: deadlines.map((d) => d.accountNumber),
      rules: deadlines.map((d) => d.rule),
      dues: deadlines.map((d) => d.dueAt),
      clocks: deadlines.map((d) => d.testClockId),
    },
    tx,
  );
}

/**
 * The live market's deadlines due at `now`, earliest first, at most `limit`, locked for the
 * caller's transaction and skipped by any other taker (FOR UPDATE SKIP LOCKED): schedulers on
 * several replicas share the work without waiting on each other.
 */
export async function takeDueDeadlines(sequelize: Sequelize, tx: Transaction, now: Date, limit: number): Promise<Deadline[]> {
  const rows = await selectRows<DeadlineRow>(
    sequelize,
    `SELECT account_number, rule, due_at FROM rule_deadlines
      WHERE test_clock_id IS NULL AND due_at <= $now
      ORDER BY due_at, account_number LIMIT $limit FOR UPDATE SKIP LOCKED`,
    { now, limit },
    tx,
  );
  return rows.map(toDeadline);
}

/** Whether any of the live market's deadlines is due at `now` (one index probe: a pass with nothing to do costs this). */
export async function anyDueDeadline(sequelize: Sequelize, now: Date): Promise<boolean> {
  const row = await selectOne<{ due: boolean }>(
    sequelize,
    'SELECT EXISTS (SELECT 1 FROM rule_deadlines WHERE test_clock_id IS NULL AND due_at <= $now) AS due',
    { now },
  );
  return row?.due === true;
}

/** A test clock's deadlines due at `moment` (its advance holds the clock), earliest first. */
export async function clockDeadlinesDue(sequelize: Sequelize, tx: Transaction, clockId: string, moment: Date): Promise<Deadline[]> {
  const rows = await selectRows<DeadlineRow>(
    sequelize,
    `SELECT account_number, rule, due_at FROM rule_deadlines WHERE test_clock_id = $clockId AND due_at <= $moment ORDER BY due_at, account_number, rule`,
    { clockId, moment },
    tx,
  );
  return rows.map(toDeadline);
}

/** The first moment after `after` at which one of a test clock's deadlines falls (null: none). */
export async function nextClockDeadline(sequelize: Sequelize, tx: Transaction, clockId: string, after: Date): Promise<Date | null> {
  const row = await selectOne<{ at: Date | null }>(
    sequelize,
    'SELECT min(due_at) AS at FROM rule_deadlines WHERE test_clock_id = $clockId AND due_at > $after',
    { clockId, after },
    tx,
  );
  return row?.at ?? null;
}

/** Deadlines that acted (or no longer apply): gone, in one statement. */
export async function dropDeadlines(sequelize: Sequelize, tx: Transaction, deadlines: ReadonlyArray<Pick<Deadline, 'accountNumber' | 'rule'>>): Promise<void> {
  if (deadlines.length === 0) return;
  await execute(
    sequelize,
    'DELETE FROM rule_deadlines WHERE (account_number, rule) IN (SELECT * FROM unnest($numbers::bigint[], $rules::text[]))',
    { numbers: deadlines.map((d) => d.accountNumber), rules: deadlines.map((d) => d.rule) },
    tx,
  );
}

/** A deadline found later than it was kept (a position opened since, an attempt restarted): moved there. */
export async function moveDeadline(sequelize: Sequelize, tx: Transaction, d: Pick<Deadline, 'accountNumber' | 'rule'>, dueAt: Date): Promise<void> {
  await execute(sequelize, 'UPDATE rule_deadlines SET due_at = $dueAt WHERE account_number = $n AND rule = $rule', { n: d.accountNumber, rule: d.rule, dueAt }, tx);
}

/** When each account's last position of its current attempt was opened (absent: none yet), in one statement. */
export async function lastPositionsOpenedAt(sequelize: Sequelize, tx: Transaction, numbers: number[]): Promise<Map<number, Date>> {
  if (numbers.length === 0) return new Map();
  const rows = await selectRows<{ account_number: string; at: Date }>(
    sequelize,
    `SELECT p.account_number, max(p.opened_at) AS at FROM positions p JOIN accounts a ON a.number = p.account_number AND a.attempt = p.attempt
      WHERE p.account_number = ANY($numbers::bigint[]) AND p.opened_at IS NOT NULL GROUP BY p.account_number`,
    { numbers },
    tx,
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), r.at]));
}

/** The account's lock (SPEC 15) in its current attempt, whether still in force or not. */
export async function accountLock(sequelize: Sequelize, accountNumber: number, attempt: number, tx?: Transaction): Promise<{ rule: LockRule; until: Date } | null> {
  const row = await selectOne<{ rule: LockRule; until: Date }>(
    sequelize,
    'SELECT rule, until FROM account_locks WHERE account_number = $accountNumber AND attempt = $attempt',
    { accountNumber, attempt },
    tx,
  );
  return row ?? null;
}

/** Locks the account until `until` (a later lock of the same day replaces an earlier one's rule and time). */
export async function writeLock(
  sequelize: Sequelize,
  tx: Transaction,
  lock: { accountNumber: number; attempt: number; rule: LockRule; until: Date; lockedAt: Date },
): Promise<void> {
  await execute(
    sequelize,
    `INSERT INTO account_locks (account_number, attempt, rule, until, locked_at) VALUES ($n, $attempt, $rule, $until, $lockedAt)
     ON CONFLICT (account_number) DO UPDATE SET attempt = EXCLUDED.attempt, rule = EXCLUDED.rule, until = EXCLUDED.until, locked_at = EXCLUDED.locked_at`,
    { n: lock.accountNumber, attempt: lock.attempt, rule: lock.rule, until: lock.until, lockedAt: lock.lockedAt },
    tx,
  );
}

/** The lock is over (expired at `now`, or a reset began a new attempt). */
export async function clearLock(sequelize: Sequelize, tx: Transaction, accountNumber: number, now: Date | null): Promise<void> {
  await execute(
    sequelize,
    `DELETE FROM account_locks WHERE account_number = $n${now ? ' AND until <= $now' : ''}`,
    now ? { n: accountNumber, now } : { n: accountNumber },
    tx,
  );
}

/** max_trades_per_day: positions of the attempt opened in trading day `day`, plus the orders pending now. */
export async function tradesOfDay(sequelize: Sequelize, accountNumber: number, attempt: number, day: string, tx?: Transaction): Promise<number> {
  const row = await selectOne<{ n: string }>(
    sequelize,
    `SELECT count(*) AS n FROM positions
      WHERE account_number = $accountNumber AND attempt = $attempt AND (trading_day = CAST($day AS date) OR status = 'pending')`,
    { accountNumber, attempt, day },
    tx,
  );
  return toNumber(row?.n);
}
