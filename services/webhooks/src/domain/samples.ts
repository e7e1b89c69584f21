import type { EventType, SampleEventData } from '@propdesk/kit';

/**
 * No account has this number (numbers are positive): a test event can never be mistaken for, or
 * collide with, a real account of this or any other organization.
 */
export const SAMPLE_ACCOUNT = 0;

const account = SAMPLE_ACCOUNT;
const test = true as const;
const phase = { index: 0, name: 'Evaluation', kind: 'evaluation' as const };
const decidedBy = { type: 'api_key' as const, id: null };

/**
 * Data of a test delivery (POST /v1/webhooks/{id}/test), one per event type, typed by the kit's
 * event catalog: shaped like the real event of that type, so a receiver's parser is exercised, but
 * every value synthetic — account 0, no trader, position, payout or endpoint id (null), round
 * figures — and `test: true`, so a receiver can tell it apart and do nothing. A type added to the
 * catalog without its sample here does not compile.
 */
const SAMPLES: { [T in EventType]: SampleEventData<T> } = {
  'account.breached': {
    account,
    trader_id: null,
    status: 'breached',
    reason: 'sample: max_daily_loss',
    equity: 94500,
    balance: 95000,
    peak_equity: 100000,
    rule: 'max_daily_loss',
    limit: 95000,
    test,
  },
  'account.passed': {
    account,
    trader_id: null,
    status: 'passed',
    equity: 110500,
    balance: 110500,
    peak_equity: 110500,
    trading_days: 4,
    program: 'standard',
    program_version: 1,
    phase,
    next_account: null,
    test,
  },
  'account.flagged': { account, rule: 'large_order', reason: 'sample: an order above 20 lots', position_id: null, test },
  'account.created': {
    account,
    status: 'active',
    trader_id: null,
    program: 'standard',
    currency: 'USD',
    initial_balance: 100000,
    balance: 100000,
    equity: 100000,
    peak_equity: 100000,
    program_version: 1,
    phase,
    attempt: 1,
    previous_account: null,
    next_account: null,
    test,
  },
  'account.assigned': { account, trader_id: null, previous_trader_id: null, test },
  'account.archived': { account, trader_id: null, previous_status: 'active', status: 'archived', test },
  'position.opened': {
    account,
    position_id: null,
    symbol: 'EURUSD',
    side: 'buy',
    volume: 1,
    type: 'market',
    open_price: 1.1,
    stop_loss: null,
    take_profit: null,
    opened_at: '2025-01-01T00:00:00.000Z',
    test,
  },
  'position.closed': { account, position_id: null, symbol: 'EURUSD', side: 'buy', volume: 1, open_price: 1.1, close_price: 1.101, profit: 100, reason: 'manual', test },
  'order.rejected': { account, rule: 'max_lots_per_order', reason: 'sample: 60 lots is above the limit', symbol: 'EURUSD', side: 'buy', volume: 60, test },
  'credits.low': { remaining: 5, threshold: 10, test },
  'account.warning': { account, trader_id: null, rule: 'max_daily_loss', used_pct: 80, limit: 95000, equity: 96000, test },
  'account.reset': { account, trader_id: null, attempt: 2, test },
  'account.locked': { account, rule: 'daily_lock', until: '2026-01-02T00:00:00.000Z', test },
  'payout.created': { account, trader_id: null, payout_id: null, amount: 1000, profit_split_pct: 80, trader_share: 800, firm_share: 200, balance_after: 100000, test },
  'payout.requested': { account, trader_id: null, payout_id: null, amount: 1000, profit_split_pct: 80, trader_share: 800, firm_share: 200, status: 'pending', test },
  'payout.approved': { account, trader_id: null, payout_id: null, amount: 1000, balance_after: 100000, decided_by: decidedBy, test },
  'payout.rejected': { account, trader_id: null, payout_id: null, amount: 1000, reason: 'sample: not eligible yet', decided_by: decidedBy, test },
  'payout.paid': { account, trader_id: null, payout_id: null, amount: 1000, reference: 'sample-reference', test },
  'account.halted': { account, reason: 'sample: under review', test },
  'account.resumed': { account, test },
  'account.reinstated': { account, trader_id: null, reason: 'sample: breach reviewed', attempt: 1, breach_rule: 'max_daily_loss', breach_flag_id: null, test },
  'account.adjusted': { account, trader_id: null, adjustment_id: null, amount: 500, reason: 'sample: goodwill credit', balance_after: 100500, test },
  'test_clock.ready': { id: null, frozen_time: '2025-01-01T00:00:00.000Z', test },
  'webhook_endpoint.disabled': { id: null, url: 'https://example.com/sample', reason: 'sample: no successful delivery for too long', test },
};

/** The sample data of a type. */
export function sampleData<T extends EventType>(type: T): SampleEventData<T> {
  return SAMPLES[type];
}
