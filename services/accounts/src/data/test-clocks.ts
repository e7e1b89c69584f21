import { execute, scopeBind, selectOne, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';
import type { TestClock, TestClockStatus } from '../domain/test-clock';

interface TestClockRow {
  id: string;
  seq: string;
  organization_id: string;
  livemode: boolean;
  name: string | null;
  frozen_time: Date;
  status: TestClockStatus;
  advance_to: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, seq, organization_id, livemode, name, frozen_time, status, advance_to, created_at';

export interface StoredTestClock extends TestClock {
  /** Keyset position of the list. */
  seq: number;
}

function toTestClock(row: TestClockRow): StoredTestClock {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    organizationId: row.organization_id,
    livemode: row.livemode,
    name: row.name,
    frozenTime: row.frozen_time,
    status: row.status,
    advanceTo: row.advance_to,
    createdAt: row.created_at,
  };
}

/**
 * The instant an account lives at, as SQL over an expression naming its clock id: the clock's
 * frozen time, or the database's now() for an account on no clock (SPEC 13). What the outbox
 * stamps an account's events with and what its own timestamps are written at, so that every path
 * that records something about an account (trading, claims, archives, the next phase) stamps it
 * with the account's time without knowing about clocks.
 */
export function clockNowSql(clockIdExpression: string): string {
  return `COALESCE((SELECT tc.frozen_time FROM test_clocks tc WHERE tc.id = ${clockIdExpression}), now())`;
}

export async function insertTestClock(
  sequelize: Sequelize,
  clock: { id: string; scope: TenantScope; name: string | null; frozenTime: Date },
  tx?: Transaction,
): Promise<StoredTestClock> {
  const row = await selectOne<TestClockRow>(
    sequelize,
    `INSERT INTO test_clocks (id, organization_id, livemode, name, frozen_time) VALUES ($id, $org, $livemode, $name, $frozenTime)
     RETURNING ${COLUMNS}`,
    { id: clock.id, ...scopeBind(clock.scope), name: clock.name, frozenTime: clock.frozenTime },
    tx,
  );
  return toTestClock(row!);
}

/**
 * A clock of the scope that is not deleted (null otherwise: another organization's, the other
 * mode's or a deleted clock reads as missing). `lock`: 'update' to change it (FOR NO KEY UPDATE,
 * which still lets accounts reference it), 'share' to keep it as read (not deleted, not stepped)
 * until the transaction ends.
 */
export async function findTestClock(
  sequelize: Sequelize,
  scope: TenantScope,
  id: string,
  options: { transaction?: Transaction; lock?: 'update' | 'share' } = {},
): Promise<StoredTestClock | null> {
  const lock = options.lock === 'update' ? ' FOR NO KEY UPDATE' : options.lock === 'share' ? ' FOR SHARE' : '';
  const row = await selectOne<TestClockRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM test_clocks WHERE id = $id AND organization_id = $org AND livemode = $livemode AND deleted_at IS NULL${lock}`,
    { id, ...scopeBind(scope) },
    options.transaction,
  );
  return row ? toTestClock(row) : null;
}

/** One keyset page of the scope's clocks, oldest first. */
export async function listTestClocks(sequelize: Sequelize, scope: TenantScope, afterSeq: number, limit: number): Promise<StoredTestClock[]> {
  const rows = await selectRows<TestClockRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM test_clocks WHERE organization_id = $org AND livemode = $livemode AND deleted_at IS NULL AND seq > $afterSeq
      ORDER BY seq LIMIT $limit`,
    { ...scopeBind(scope), afterSeq, limit },
  );
  return rows.map(toTestClock);
}

/** A ready clock starts advancing to `to` (the caller holds its row lock). */
export async function markAdvancing(sequelize: Sequelize, tx: Transaction, id: string, to: Date): Promise<StoredTestClock> {
  const row = await selectOne<TestClockRow>(
    sequelize,
    `UPDATE test_clocks SET status = 'advancing', advance_to = $to, runner = NULL, lease_expires_at = NULL WHERE id = $id RETURNING ${COLUMNS}`,
    { id, to },
    tx,
  );
  return toTestClock(row!);
}

export async function markDeleted(sequelize: Sequelize, tx: Transaction, id: string): Promise<void> {
  await execute(sequelize, 'UPDATE test_clocks SET deleted_at = now(), runner = NULL, lease_expires_at = NULL WHERE id = $id', { id }, tx);
}

/** A clock as its accounts see it: its time and status, whether deleted or not (null: no such clock). */
export interface ClockState {
  id: string;
  frozenTime: Date;
  status: TestClockStatus;
  deleted: boolean;
}

/** The clock an account of the scope lives on (null: none, or no such account in the scope). */
export async function clockOfAccount(sequelize: Sequelize, scope: TenantScope, accountNumber: number): Promise<ClockState | null> {
  const row = await selectOne<{ id: string; frozen_time: Date; status: TestClockStatus; deleted: boolean }>(
    sequelize,
    `SELECT c.id, c.frozen_time, c.status, c.deleted_at IS NOT NULL AS deleted
       FROM accounts a JOIN test_clocks c ON c.id = a.test_clock_id
      WHERE a.number = $accountNumber AND a.organization_id = $org AND a.livemode = $livemode`,
    { accountNumber, ...scopeBind(scope) },
  );
  return row ? { id: row.id, frozenTime: row.frozen_time, status: row.status, deleted: row.deleted } : null;
}

/** A clock's state inside the caller's transaction (null: no such clock). */
export async function clockState(sequelize: Sequelize, id: string, tx?: Transaction): Promise<ClockState | null> {
  const row = await selectOne<{ id: string; frozen_time: Date; status: TestClockStatus; deleted: boolean }>(
    sequelize,
    'SELECT id, frozen_time, status, deleted_at IS NOT NULL AS deleted FROM test_clocks WHERE id = $id',
    { id },
    tx,
  );
  return row ? { id: row.id, frozenTime: row.frozen_time, status: row.status, deleted: row.deleted } : null;
}

/** The clocks being advanced (by anyone), oldest advance first. */
export async function advancingClockIds(sequelize: Sequelize): Promise<string[]> {
  const rows = await selectRows<{ id: string }>(sequelize, `SELECT id FROM test_clocks WHERE status = 'advancing' AND deleted_at IS NULL ORDER BY seq`);
  return rows.map((r) => r.id);
}

/**
 * Takes the walk of an advancing clock for `runner` until now + `leaseMs` (PostgreSQL's clock,
 * shared by every replica): when no one holds it, its lease expired, or `runner` already does.
 */
export async function claimAdvance(sequelize: Sequelize, id: string, runner: string, leaseMs: number): Promise<boolean> {
  const row = await selectOne<{ id: string }>(
    sequelize,
    `UPDATE test_clocks SET runner = $runner, lease_expires_at = now() + make_interval(secs => $lease)
      WHERE id = $id AND status = 'advancing' AND deleted_at IS NULL
        AND (runner IS NULL OR runner = $runner OR lease_expires_at < now())
      RETURNING id`,
    { id, runner, lease: leaseMs / 1000 },
  );
  return row !== undefined;
}

/**
 * One step of a walk begins: the clock locked for the step's transaction, if it is still
 * advancing, not deleted and walked by `runner` (null otherwise: the walk was lost, finished or
 * deleted); the lease is renewed with it.
 */
export async function lockAdvanceStep(sequelize: Sequelize, tx: Transaction, id: string, runner: string, leaseMs: number): Promise<StoredTestClock | null> {
  const row = await selectOne<TestClockRow>(
    sequelize,
    `UPDATE test_clocks SET lease_expires_at = now() + make_interval(secs => $lease)
      WHERE id = $id AND status = 'advancing' AND deleted_at IS NULL AND runner = $runner
      RETURNING ${COLUMNS}`,
    { id, runner, lease: leaseMs / 1000 },
    tx,
  );
  return row ? toTestClock(row) : null;
}

/** The walk's progress: the clock's accounts live at `time` from here on (events of the step included). */
export async function writeClockTime(sequelize: Sequelize, tx: Transaction, id: string, time: Date): Promise<void> {
  await execute(sequelize, 'UPDATE test_clocks SET frozen_time = $time WHERE id = $id', { id, time }, tx);
}

/** The walk has reached its end: the clock is ready at it. */
export async function finishAdvance(sequelize: Sequelize, tx: Transaction, id: string): Promise<StoredTestClock> {
  const row = await selectOne<TestClockRow>(
    sequelize,
    `UPDATE test_clocks SET frozen_time = advance_to, status = 'ready', advance_to = NULL, runner = NULL, lease_expires_at = NULL
      WHERE id = $id RETURNING ${COLUMNS}`,
    { id },
    tx,
  );
  return toTestClock(row!);
}

/** A runner stopping gives a walk's lease back, so another (or the next start) resumes it at once. */
export async function releaseAdvance(sequelize: Sequelize, id: string, runner: string): Promise<void> {
  await execute(sequelize, 'UPDATE test_clocks SET runner = NULL, lease_expires_at = NULL WHERE id = $id AND runner = $runner', { id, runner });
}
