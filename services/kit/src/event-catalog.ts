import { z } from 'zod';
import { ACCOUNT_STATUSES } from './rest/account';
import { PHASE_KINDS } from './rest/program';
import { ORDER_TYPE_NAMES, SIDE_NAMES } from './rest/trading';

/**
 * Every event type and the schema of its `data` (SPEC 8, 10, 13, 14, 17), written once: the
 * services build each event's data typed by these schemas (events.ts, NewEventOf), the event feed
 * and webhook registration take their type list from it, and GET /v1/event_types serves each as a
 * JSON Schema. An event whose data gains a field the schema lacks does not compile.
 */

/** What every data schema allows besides its own fields: the sample delivery's marker. */
const SAMPLE_MARKER = {
  test: z
    .literal(true)
    .optional()
    .describe('present (true) only in a sample delivery of POST /v1/webhooks/{id}/test, whose account is 0 and whose ids are null: act on nothing'),
};

/** One event type: what it means, and the exact fields of its data (strict: nothing else). */
function event<S extends z.ZodRawShape>(description: string, shape: S) {
  return { description, schema: z.object({ ...shape, ...SAMPLE_MARKER }).strict().describe(description) };
}

const account = z.number().int().describe("the account's number");
const traderId = z.string().nullable().describe("the trader holding the account (null: unassigned)");
const money = (what: string) => z.number().describe(what);
const phase = z
  .object({ index: z.number().int().describe('0-based'), name: z.string(), kind: z.enum(PHASE_KINDS) })
  .strict()
  .describe("the account's phase in its program");
const program = z.string().describe('the name of the program frozen into the account');
const programVersion = z.number().int().describe('the version of the program frozen into the account');
const accountNumberOrNull = (what: string) => z.number().int().nullable().describe(what);
const symbol = z.string().describe('the instrument, e.g. EURUSD');
const side = z.enum(SIDE_NAMES);
const volume = z.number().describe('lots');
const rule = (what: string) => z.string().describe(what);
const reason = (what: string) => z.string().describe(what);
const payoutId = z.string().describe('the payout (GET /v1/payouts/{id})');
const decidedBy = z
  .object({ type: z.enum(['api_key', 'user']), id: z.string() })
  .strict()
  .describe('who decided: an API key or a panel user');

/** The account's figures every account event of section 8 carries. */
const accountSnapshot = {
  account,
  status: z.enum(ACCOUNT_STATUSES),
  trader_id: traderId,
  program,
  currency: z.string(),
  initial_balance: money('the initial balance'),
  balance: money('the balance'),
  equity: money('the equity'),
  peak_equity: money('the highest equity of the attempt'),
  program_version: programVersion,
  phase,
  attempt: z.number().int().describe('1, then +1 per reset'),
  previous_account: accountNumberOrNull("the previous phase's account, null in the first phase"),
  next_account: accountNumberOrNull("the next phase's account, once this one passed"),
};

const payoutShares = {
  profit_split_pct: z.number().describe("the trader's share of a payout, in percent"),
  trader_share: money("the trader's part of the amount"),
  firm_share: money("the firm's part of the amount"),
};

export const EVENT_CATALOG = {
  'account.breached': event('An account broke a rule of its phase (or was breached by hand): trading stopped, its positions closed.', {
    account,
    trader_id: traderId,
    status: z.literal('breached'),
    reason: reason('what happened, readable'),
    equity: money('the equity that crossed the limit'),
    balance: money('the balance after its positions closed'),
    peak_equity: money('the highest equity of the attempt'),
    rule: rule('max_daily_loss, max_total_loss, manual, or a rule of the phase'),
    limit: z.number().nullable().describe('the equity level that was crossed (null for a manual breach)'),
  }),
  'account.passed': event("An evaluation phase's objectives were met: the account is passed; with a next phase, next_account is its new account.", {
    account,
    trader_id: traderId,
    status: z.literal('passed'),
    equity: money('the equity that met the target'),
    balance: money('the balance after its positions closed'),
    peak_equity: money('the highest equity of the attempt'),
    trading_days: z.number().int().describe('trading days of the attempt'),
    program,
    program_version: programVersion,
    phase,
    next_account: accountNumberOrNull('the account provisioned for the next phase (null: the program ends here)'),
  }),
  'account.flagged': event('A flag rule matched (an order above the lots threshold, a position held over the weekend); trading continues.', {
    account,
    rule: rule('large_order or weekend_holding'),
    reason: reason('what was flagged, readable'),
    position_id: z.string().describe('the position flagged'),
  }),
  'account.created': event("An account was provisioned (by a request, or by progression into a program's next phase); data is the account.", accountSnapshot),
  'account.assigned': event('The account was given to a trader, or taken back (trader_id null).', {
    account,
    trader_id: traderId,
    previous_trader_id: z.string().nullable().describe('the holder before (null: none)'),
  }),
  'account.archived': event('The account was taken out of circulation.', {
    account,
    trader_id: traderId,
    previous_status: z.enum(ACCOUNT_STATUSES),
    status: z.literal('archived'),
  }),
  'position.opened': event('An order filled (at once for a market order, later for a pending one): a position is open.', {
    account,
    position_id: z.string(),
    symbol,
    side,
    volume,
    type: z.enum(ORDER_TYPE_NAMES),
    open_price: z.number().describe('the fill price'),
    stop_loss: z.number().nullable(),
    take_profit: z.number().nullable(),
    opened_at: z.string().datetime().describe('when it filled (on a test clock, the clock time)'),
  }),
  'position.closed': event('A position closed (by request, stop loss, take profit, breach, pass or reset): its deal is in trades.', {
    account,
    position_id: z.string(),
    symbol,
    side,
    volume,
    open_price: z.number(),
    close_price: z.number(),
    profit: money('the closed profit (negative: a loss)'),
    reason: reason('manual, stop_loss, take_profit, breach, profit_target, reset, ...'),
  }),
  'order.rejected': event('A pre-order rule refused an order (422 order_rejected).', {
    account,
    rule: rule('the rule that refused it, e.g. max_lots_per_order, allowed_symbols, margin, halted'),
    reason: reason('why, readable'),
    symbol,
    side,
    volume,
  }),
  'credits.low': event("The organization's account credits fell below its threshold (live mode only).", {
    remaining: z.number().int().describe('credits left'),
    threshold: z.number().int().describe('the threshold crossed'),
  }),
  'account.warning': event('Equity used the warning share of a loss allowance (once per trading day for the daily allowance, once per attempt for the total).', {
    account,
    trader_id: traderId,
    rule: rule('max_daily_loss or max_total_loss'),
    used_pct: z.number().describe('the share of the allowance used, in percent'),
    limit: money('the breach level of the rule'),
    equity: money('the equity that used it'),
  }),
  'account.reset': event('The account started a new attempt: positions closed, balance back to the initial balance.', {
    account,
    trader_id: traderId,
    attempt: z.number().int().describe('the new attempt'),
  }),
  'payout.created': event('A funded account paid out (no approval needed): its balance dropped by amount.', {
    account,
    trader_id: traderId,
    payout_id: payoutId,
    amount: money('the amount paid out'),
    ...payoutShares,
    balance_after: money('the balance after the payout'),
  }),
  'payout.requested': event('A payout awaits the firm\'s approval: its amount is reserved, the balance unchanged.', {
    account,
    trader_id: traderId,
    payout_id: payoutId,
    amount: money('the amount requested'),
    ...payoutShares,
    status: z.literal('pending'),
  }),
  'payout.approved': event('A pending payout was approved: the balance dropped by amount.', {
    account,
    trader_id: traderId,
    payout_id: payoutId,
    amount: money('the amount paid out'),
    balance_after: money('the balance after the payout'),
    decided_by: decidedBy,
  }),
  'payout.rejected': event('A pending payout was rejected: its reservation is released.', {
    account,
    trader_id: traderId,
    payout_id: payoutId,
    amount: money('the amount requested'),
    reason: reason('why, as the firm gave it'),
    decided_by: decidedBy,
  }),
  'payout.paid': event('An approved payout was marked paid.', {
    account,
    trader_id: traderId,
    payout_id: payoutId,
    amount: money('the amount paid'),
    reference: z.string().describe("the firm's payment reference"),
  }),
  'account.halted': event('An operator halted trading on the account (alone or with its program): new orders are refused, evaluation goes on.', {
    account,
    reason: reason('why, as the operator gave it'),
  }),
  'account.resumed': event('Trading on a halted account was resumed.', { account }),
  'account.reinstated': event('A breached account is active again in the same attempt, as the breach left it.', {
    account,
    trader_id: traderId,
    reason: reason('why, as the operator gave it'),
    attempt: z.number().int().describe('the attempt, unchanged'),
    breach_rule: z.string().nullable().describe('the rule of the breach lifted'),
    breach_flag_id: z.string().nullable().describe('the breach in flags, now with reinstated_at'),
  }),
  'account.adjusted': event('An operator credited or debited the balance (a balance deal in trades).', {
    account,
    trader_id: traderId,
    adjustment_id: z.string().describe('the balance deal'),
    amount: money('positive: a credit; negative: a debit'),
    reason: reason('why, as the operator gave it'),
    balance_after: money('the balance after it'),
  }),
  'account.locked': event("The phase's daily loss (daily_loss_action lock) or daily profit cap locked the account for the rest of its trading day: its positions closed, new orders refused until `until`; it is not breached.", {
    account,
    rule: z.enum(['daily_lock', 'daily_profit_cap']).describe('daily_lock (the daily loss) or daily_profit_cap'),
    until: z.string().datetime().describe('the start of the next trading day, when the lock ends'),
  }),
  'test_clock.ready': event('A test clock finished advancing (test mode).', {
    id: z.string().describe('the clock'),
    frozen_time: z.string().datetime().describe("the clock's time now"),
  }),
  'webhook_endpoint.disabled': event("One of the organization's webhook endpoints was disabled (no success for too long, or a 410); sent to the other endpoints.", {
    id: z.string().describe('the endpoint'),
    url: z.string().describe('its URL'),
    reason: reason('why it was disabled'),
  }),
};
