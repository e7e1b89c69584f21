import { AppError, changedFields, createdFields, cursorScope, effectTransaction, pageSize, recordAudit, requireText, type ScopeFields, type TenantScope, type Transaction } from '@propdesk/kit';
import { archiveAccountsOnClock } from '../data/accounts';
import { revokeSessionsForAccounts } from '../data/executor-sessions';
import { appendEvents } from '../data/outbox';
import { findTestClock, insertTestClock, listTestClocks as listClockRows, markAdvancing, markDeleted, type StoredTestClock } from '../data/test-clocks';
import { advanceTarget, initialFrozenTime, newTestClockId, requireTestMode, testClockId, testClockNotFound, type TestClock } from '../domain/test-clock';
import { tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { testClockAudit, testClockFields } from './audit-entries';

/**
 * What a test clock needs of the trading module (main.ts wires it; the core knows no more of
 * trading than this): its prices begin as the market's at its creation, and an advance is walked
 * by the trading module's runner, which is told at once rather than at its next look.
 */
export interface TestClockMarket {
  /** Inside the clock's creation: the market's latest prices become the clock's, at its time. */
  openPrices(tx: Transaction, clock: TestClock): Promise<void>;
  /** After an advance was committed: walk it now. */
  advanceRequested(clockId: string): void;
}

/** A clock of the scope (test mode only: a live scope is forbidden); not_found for a missing, deleted or other partition's clock. */
async function requireClock(deps: AccountsDeps, scope: TenantScope, id: string, tx?: Transaction): Promise<StoredTestClock> {
  const clock = await findTestClock(deps.sequelize, scope, testClockId(id), { transaction: tx, lock: tx ? 'update' : undefined });
  if (!clock) throw testClockNotFound();
  return clock;
}

function requireReady(clock: StoredTestClock): StoredTestClock {
  if (clock.status === 'advancing') throw new AppError('conflict', `test clock ${clock.id} is advancing; wait for test_clock.ready`);
  return clock;
}

function testScope(req: ScopeFields): TenantScope {
  const scope = tenantScope(req);
  requireTestMode(scope);
  return scope;
}

/** POST /v1/test_clocks {frozen_time?, name?}: a ready clock at its frozen time (now by default), priced as the market is now. */
export async function createTestClock(deps: AccountsDeps, req: ScopeFields & { frozenTime?: Date; name: string }): Promise<TestClock> {
  const scope = testScope(req);
  const name = req.name === '' ? null : requireText(req.name, 'name', { max: 200 });
  const frozenTime = initialFrozenTime(req.frozenTime, deps.clock.now());
  return effectTransaction(deps.sequelize, async (tx) => {
    const clock = await insertTestClock(deps.sequelize, { id: newTestClockId(), scope, name, frozenTime }, tx);
    await deps.testClockMarket?.openPrices(tx, clock);
    await recordAudit(tx, testClockAudit(clock, 'test_clock.create', createdFields(testClockFields(clock))));
    return clock;
  });
}

export async function getTestClock(deps: AccountsDeps, req: ScopeFields & { id: string }): Promise<TestClock> {
  return requireClock(deps, testScope(req), req.id);
}

/** GET /v1/test_clocks: the scope's clocks, oldest first, keyset-paged with a cursor bound to the organization and mode. */
export async function listTestClocks(
  deps: AccountsDeps,
  req: ScopeFields & { pageSize?: number; pageToken?: string },
): Promise<{ clocks: TestClock[]; nextPageToken: string }> {
  const scope = testScope(req);
  const cursor = `test_clocks:${cursorScope(scope)}`;
  const limit = pageSize(req.pageSize);
  let after = 0;
  if (req.pageToken) {
    const position = deps.cursors.decode<{ s?: unknown }>(cursor, req.pageToken);
    if (typeof position?.s !== 'number' || !Number.isSafeInteger(position.s)) throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    after = position.s;
  }
  const rows = await listClockRows(deps.sequelize, scope, after, limit + 1);
  const clocks = rows.slice(0, limit);
  return { clocks, nextPageToken: rows.length > limit ? deps.cursors.encode(cursor, { s: clocks[clocks.length - 1].seq }) : '' };
}

/**
 * POST /v1/test_clocks/{id}/advance {frozen_time}: the clock starts advancing to frozen_time (later
 * than its own, at most 366 days later) and is answered advancing; the trading module's runner
 * walks it in the background and emits test_clock.ready. An advancing clock is a conflict.
 */
export async function advanceTestClock(deps: AccountsDeps, req: ScopeFields & { id: string; frozenTime?: Date }): Promise<TestClock> {
  const scope = testScope(req);
  // Refused at once while advancing, without waiting for the row lock a step of the walk holds.
  requireReady(await requireClock(deps, scope, req.id));
  const advancing = await effectTransaction(deps.sequelize, async (tx) => {
    const clock = requireReady(await requireClock(deps, scope, req.id, tx));
    const advancing = await markAdvancing(deps.sequelize, tx, clock.id, advanceTarget(clock, req.frozenTime));
    await recordAudit(tx, testClockAudit(advancing, 'test_clock.advance', changedFields(testClockFields(clock), testClockFields(advancing))));
    return advancing;
  });
  deps.testClockMarket?.advanceRequested(advancing.id);
  return advancing;
}

/**
 * DELETE /v1/test_clocks/{id}: the clock is deleted (an advance in progress stops where it is)
 * and its accounts are archived at its time, as POST .../archive would: sessions revoked,
 * account.archived for each.
 */
export async function deleteTestClock(deps: AccountsDeps, req: ScopeFields & { id: string }): Promise<{ id: string; archivedAccounts: number }> {
  const scope = testScope(req);
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (tx) => {
    const clock = await requireClock(deps, scope, req.id, tx);
    const archived = await archiveAccountsOnClock(sequelize, tx, clock.id);
    await revokeSessionsForAccounts(
      sequelize,
      tx,
      archived.map((a) => a.account.number),
    );
    await appendEvents(
      sequelize,
      tx,
      archived.map(({ account, previousStatus }) => ({
        ...scope,
        type: 'account.archived',
        data: { account: account.number, trader_id: account.traderId, previous_status: previousStatus, status: 'archived' },
      })),
    );
    await markDeleted(sequelize, tx, clock.id);
    // One entry for the clock; each archived account has its account.archived event in its timeline.
    await recordAudit(tx, testClockAudit(clock, 'test_clock.delete', { deleted: [false, true], archived_accounts: [0, archived.length] }));
    return { id: clock.id, archivedAccounts: archived.length };
  });
}
