import { AppError, atomicEffect, isUuid, pageSize } from '@propdesk/kit';
import { findOrCreateTrader, findTrader, findTradersByIdOrEmail, listTraders as listTraderRows, type TraderPosition } from '../data/traders';
import type { Trader } from '../domain/account';
import { organizationId, traderInput } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** An existing email answers the existing trader (created=false), name unchanged. */
export async function createTrader(
  deps: AccountsDeps,
  input: { organizationId: string; name: string; email: string },
): Promise<{ trader: Trader; created: boolean }> {
  const org = organizationId(input.organizationId);
  const who = traderInput(input.name, input.email);
  return atomicEffect(deps.sequelize, (transaction) => findOrCreateTrader(deps.sequelize, org, who, transaction));
}

export async function getTrader(deps: AccountsDeps, input: { organizationId: string; traderId: string }): Promise<Trader> {
  const org = organizationId(input.organizationId);
  // A malformed id can name no trader: not_found, as for any missing one.
  const trader = isUuid(input.traderId) ? await findTrader(deps.sequelize, org, input.traderId.toLowerCase()) : null;
  if (!trader) throw new AppError('not_found', 'trader not found');
  return trader;
}

/** Keyset paging by (created_at, id). */
export async function listTraders(
  deps: AccountsDeps,
  input: { organizationId: string; pageSize: number; pageToken: string },
): Promise<{ traders: Trader[]; nextPageToken: string }> {
  const org = organizationId(input.organizationId);
  const size = pageSize(input.pageSize);
  const scope = `traders:${org}`;
  let after: TraderPosition | null = null;
  if (input.pageToken) {
    const position = deps.cursors.decode<Partial<TraderPosition>>(scope, input.pageToken);
    if (typeof position?.t !== 'string' || typeof position.id !== 'string' || !isUuid(position.id) || Number.isNaN(Date.parse(position.t))) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = { t: position.t, id: position.id };
  }
  const rows = await listTraderRows(deps.sequelize, org, after, size + 1);
  const page = rows.slice(0, size);
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, page[page.length - 1].position) : '';
  return { traders: page.map((r) => r.trader), nextPageToken };
}

const MAX_LOOKUPS = 200;

/** Traders by id or email (any case); malformed ids and unknown ones simply find nothing. */
export async function findTraders(deps: AccountsDeps, input: { organizationId: string; ids: string[]; emails: string[] }): Promise<Trader[]> {
  const org = organizationId(input.organizationId);
  if (input.ids.length > MAX_LOOKUPS) throw new AppError('invalid_request', `at most ${MAX_LOOKUPS} ids`, 'ids');
  if (input.emails.length > MAX_LOOKUPS) throw new AppError('invalid_request', `at most ${MAX_LOOKUPS} emails`, 'emails');
  const ids = [...new Set(input.ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const emails = [...new Set(input.emails.map((e) => e.trim().toLowerCase()).filter((e) => e.length > 0 && e.length <= 320))];
  return findTradersByIdOrEmail(deps.sequelize, org, ids, emails);
}
