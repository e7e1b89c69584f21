import { AppError, cursorScope, effectTransaction, isUuid, pageSize, recordAudit, type ScopeFields } from '@propdesk/kit';
import { findOrCreateTrader, findTrader, findTradersByIdOrEmail, listTraders as listTraderRows, type TraderPosition } from '../data/traders';
import type { Trader } from '../domain/account';
import { tenantScope, traderInput } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { createdTraderAudit } from './audit-entries';

/** An existing email (of the same mode) answers the existing trader (created=false), name unchanged. */
export async function createTrader(deps: AccountsDeps, input: ScopeFields & { name: string; email: string }): Promise<{ trader: Trader; created: boolean }> {
  const scope = tenantScope(input);
  const who = traderInput(input.name, input.email);
  return effectTransaction(deps.sequelize, async (transaction) => {
    const found = await findOrCreateTrader(deps.sequelize, scope, who, transaction);
    // An existing email changes nothing, and so records nothing.
    if (found.created) await recordAudit(transaction, createdTraderAudit(found.trader));
    return found;
  });
}

/** Another organization's or the other mode's trader is not_found, like a missing one. */
export async function getTrader(deps: AccountsDeps, input: ScopeFields & { traderId: string }): Promise<Trader> {
  const scope = tenantScope(input);
  // A malformed id can name no trader: not_found, as for any missing one.
  const trader = isUuid(input.traderId) ? await findTrader(deps.sequelize, scope, input.traderId.toLowerCase()) : null;
  if (!trader) throw new AppError('not_found', 'trader not found');
  return trader;
}

/** Keyset paging by (created_at, id). */
export async function listTraders(
  deps: AccountsDeps,
  input: ScopeFields & { pageSize: number; pageToken: string },
): Promise<{ traders: Trader[]; nextPageToken: string }> {
  const tenant = tenantScope(input);
  const size = pageSize(input.pageSize);
  const scope = `traders:${cursorScope(tenant)}`;
  let after: TraderPosition | null = null;
  if (input.pageToken) {
    const position = deps.cursors.decode<Partial<TraderPosition>>(scope, input.pageToken);
    if (typeof position?.t !== 'string' || typeof position.id !== 'string' || !isUuid(position.id) || Number.isNaN(Date.parse(position.t))) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = { t: position.t, id: position.id };
  }
  const rows = await listTraderRows(deps.sequelize, tenant, after, size + 1);
  const page = rows.slice(0, size);
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, page[page.length - 1].position) : '';
  return { traders: page.map((r) => r.trader), nextPageToken };
}

const MAX_LOOKUPS = 200;

/** Traders by id or email (any case); malformed ids and unknown ones simply find nothing. */
export async function findTraders(deps: AccountsDeps, input: ScopeFields & { ids: string[]; emails: string[] }): Promise<Trader[]> {
  const scope = tenantScope(input);
  if (input.ids.length > MAX_LOOKUPS) throw new AppError('invalid_request', `at most ${MAX_LOOKUPS} ids`, 'ids');
  if (input.emails.length > MAX_LOOKUPS) throw new AppError('invalid_request', `at most ${MAX_LOOKUPS} emails`, 'emails');
  const ids = [...new Set(input.ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const emails = [...new Set(input.emails.map((e) => e.trim().toLowerCase()).filter((e) => e.length > 0 && e.length <= 320))];
  return findTradersByIdOrEmail(deps.sequelize, scope, ids, emails);
}
