import { AppError, cursorScope, effectTransaction, isUuid, pageSize, recordAudit, requireText, type CursorCodec, type ScopeFields, type TenantScope, type Transaction } from '@propdesk/kit';
import { accountNotFound, appendEvent, lockAccount, parseAccountNumber, parseScope, writePayout, type Account } from '../core-port';
import { findPayout, listOrganizationPayouts as listRows, shiftAccountDays, writeDecision, writePaid, type Payout, type PayoutDecider, type PayoutStatus } from '../data/payouts';
import { announceMoneyChange } from '../data/positions';
import { roundMoney } from '../domain/instruments';
import type { Page } from './account-pages';
import { notAllowed, refuse, requireVerifiedTrader } from './payouts';
import type { LiveEngine, TradingContext } from './trading-context';

/** A reason or a transfer reference of SPEC 14: required, the kit's text rules. */
const MAX_REASON_LENGTH = 500;
const MAX_REFERENCE_LENGTH = 200;

const payoutNotFound = () => new AppError('not_found', 'payout not found');

/** A payout id of the path: a malformed one names no payout. */
function payoutId(value: string): string {
  if (!isUuid(value)) throw payoutNotFound();
  return value.toLowerCase();
}

/** Who decides: the API key or the panel user the gateway or the panel authenticated. */
function decider(value: { type: PayoutDecider['type'] | undefined; id: string } | undefined): PayoutDecider {
  if (!value?.type || typeof value.id !== 'string' || value.id === '' || value.id.length > 128) {
    throw new AppError('invalid_request', 'decided_by must name the API key or user deciding', 'decided_by');
  }
  return { type: value.type, id: value.id };
}

const wrongState = (payout: Payout, wanted: PayoutStatus, verb: string) =>
  new AppError('conflict', `payout ${payout.id} is ${payout.status}; only a ${wanted} payout can be ${verb}`);

/** GetPayout: another organization's or the other mode's payout is not_found. */
export async function getPayout(engine: LiveEngine, req: ScopeFields & { payoutId: string }): Promise<Payout> {
  const scope = parseScope(req);
  const id = payoutId(req.payoutId);
  const ctx = await engine.context();
  const payout = await findPayout(ctx.sequelize, scope, id);
  if (!payout) throw payoutNotFound();
  return payout;
}

export interface OrganizationPayoutsRequest extends ScopeFields {
  pageSize?: number;
  pageToken?: string;
  status?: PayoutStatus;
  account?: string;
}

/** ListOrganizationPayouts (GET /v1/payouts): every payout of the organization in this mode, oldest first, filtered by status and account. */
export async function listOrganizationPayouts(engine: LiveEngine, cursors: CursorCodec, req: OrganizationPayoutsRequest): Promise<Page<Payout>> {
  const tenant = parseScope(req);
  const accountNumber = req.account === undefined ? undefined : parseAccountNumber(req.account, 'account');
  const ctx = await engine.context();
  const scope = `payouts-of-organization:${cursorScope(tenant)}:${req.status ?? ''}:${accountNumber ?? ''}`;
  const limit = pageSize(req.pageSize);
  let afterSeq = 0;
  if (req.pageToken) {
    const position = cursors.decode<{ s?: unknown }>(scope, req.pageToken);
    if (typeof position?.s !== 'number' || !Number.isSafeInteger(position.s)) throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    afterSeq = position.s;
  }
  const rows = await listRows(ctx.sequelize, tenant, { status: req.status, accountNumber }, afterSeq, limit + 1);
  const items = rows.slice(0, limit);
  return { items, nextPageToken: rows.length > limit ? cursors.encode(scope, { s: items[items.length - 1].seq }) : '' };
}

/**
 * ApprovePayout (POST /v1/payouts/{id}/approve, SPEC 14): pending -> approved, the balance dropping
 * by the amount in the same transaction (payout.approved). It re-checks that the account can still
 * pay: active, funded, KYC when its program requires it, and balance - amount >= initial balance
 * (payout_not_allowed otherwise). Under the account's row lock, then the payout's: of two
 * concurrent approvals one approves and the other finds it approved (conflict, nothing changed).
 */
export async function approvePayout(engine: LiveEngine, req: ScopeFields & { payoutId: string; decidedBy?: { type: PayoutDecider['type'] | undefined; id: string } }): Promise<Payout> {
  const by = decider(req.decidedBy);
  const decided = await decide(engine, req, async ({ ctx, tx, scope, account, payout }) => {
    if (payout.status !== 'pending') throw wrongState(payout, 'pending', 'approved');
    refuse(account);
    if (account.terms.requiresKyc) await requireVerifiedTrader(ctx.sequelize, tx, account);
    const balanceAfter = roundMoney(account.balance - payout.amount);
    if (balanceAfter < account.initialBalance) {
      throw notAllowed(
        `account ${account.number} can no longer pay ${payout.amount.toFixed(2)}: its balance of ${account.balance.toFixed(2)} would fall below the initial balance of ${account.initialBalance.toFixed(2)}`,
      );
    }
    const now = ctx.now();
    await writePayout(ctx.sequelize, tx, account.number, payout.amount, now);
    await shiftAccountDays(ctx.sequelize, tx, account.number, payout.amount);
    await announceMoneyChange(ctx.sequelize, tx, account.number);
    const approved = await writeDecision(ctx.sequelize, tx, payout.id, { status: 'approved', decidedAt: now, decidedBy: by, balanceAfter, reason: null });
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'payout.approved',
      data: { account: account.number, trader_id: account.traderId, payout_id: payout.id, amount: payout.amount, balance_after: balanceAfter, decided_by: by },
    });
    await recordAudit(tx, {
      scope,
      action: 'payout.approve',
      target: { type: 'payout', id: payout.id },
      changes: { status: ['pending', 'approved'], balance: [account.balance, balanceAfter] },
    });
    return approved;
  });
  await engine.afterAccountChange(decided.accountNumber);
  return decided;
}

/** RejectPayout (POST /v1/payouts/{id}/reject {reason}): pending -> rejected, its reservation released (payout.rejected). */
export async function rejectPayout(
  engine: LiveEngine,
  req: ScopeFields & { payoutId: string; decidedBy?: { type: PayoutDecider['type'] | undefined; id: string }; reason: string },
): Promise<Payout> {
  const by = decider(req.decidedBy);
  const reason = requireText(req.reason, 'reason', { max: MAX_REASON_LENGTH });
  return decide(engine, req, async ({ ctx, tx, scope, account, payout }) => {
    if (payout.status !== 'pending') throw wrongState(payout, 'pending', 'rejected');
    const rejected = await writeDecision(ctx.sequelize, tx, payout.id, { status: 'rejected', decidedAt: ctx.now(), decidedBy: by, balanceAfter: null, reason });
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'payout.rejected',
      data: { account: account.number, trader_id: account.traderId, payout_id: payout.id, amount: payout.amount, reason, decided_by: by },
    });
    await recordAudit(tx, { scope, action: 'payout.reject', target: { type: 'payout', id: payout.id }, changes: { status: ['pending', 'rejected'], reason: [null, reason] } });
    return rejected;
  });
}

/** MarkPayoutPaid (POST /v1/payouts/{id}/mark-paid {reference}): approved -> paid (payout.paid). */
export async function markPayoutPaid(engine: LiveEngine, req: ScopeFields & { payoutId: string; reference: string }): Promise<Payout> {
  const reference = requireText(req.reference, 'reference', { max: MAX_REFERENCE_LENGTH });
  return decide(engine, req, async ({ ctx, tx, scope, account, payout }) => {
    if (payout.status !== 'approved') throw wrongState(payout, 'approved', 'marked paid');
    const paid = await writePaid(ctx.sequelize, tx, payout.id, reference, ctx.now());
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'payout.paid',
      data: { account: account.number, trader_id: account.traderId, payout_id: payout.id, amount: payout.amount, reference },
    });
    await recordAudit(tx, { scope, action: 'payout.mark_paid', target: { type: 'payout', id: payout.id }, changes: { status: ['approved', 'paid'], reference: [null, reference] } });
    return paid;
  });
}

interface DecisionContext {
  ctx: TradingContext;
  tx: Transaction;
  scope: TenantScope;
  account: Account;
  payout: Payout;
}

/**
 * One decision on a payout, in one transaction: the account's row lock first (the order every
 * change of an account's money takes, so a decision serializes with requests, trades and
 * breaches), then the payout's, re-read there, so what `act` judges is what is committed.
 */
async function decide(
  engine: LiveEngine,
  req: ScopeFields & { payoutId: string },
  act: (d: DecisionContext) => Promise<Payout>,
): Promise<Payout> {
  const scope = parseScope(req);
  const id = payoutId(req.payoutId);
  const ctx = await engine.context();
  const seen = await findPayout(ctx.sequelize, scope, id);
  if (!seen) throw payoutNotFound();
  return effectTransaction(ctx.sequelize, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, seen.accountNumber, scope);
    if (!account) throw accountNotFound();
    const payout = await findPayout(ctx.sequelize, scope, id, { tx, forUpdate: true });
    if (!payout) throw payoutNotFound();
    return act({ ctx, tx, scope, account, payout });
  });
}
