export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  /** SPEC 13: false for an event of test mode. */
  livemode: boolean;
  /** SPEC 17: the event's place in its account's events; null for an event about no account (and a test event). */
  sequence: number | null;
  data: Record<string, unknown>;
}

/** The exact bytes sent on every attempt: serialised once, stored, never rebuilt. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify({
    id: envelope.id,
    type: envelope.type,
    created_at: envelope.created_at,
    organization_id: envelope.organization_id,
    livemode: envelope.livemode,
    sequence: envelope.sequence,
    data: envelope.data,
  });
}

/**
 * No account has this number (numbers are positive): a test event can never be mistaken for, or
 * collide with, a real account of this or any other organization.
 */
export const SAMPLE_ACCOUNT = 0;

/**
 * Data of a test delivery (POST /v1/webhooks/{id}/test): shaped like the real event of that type,
 * so a receiver's parser is exercised, but every value synthetic — account 0, no trader or
 * position id (null), round figures — and `test: true`, so a receiver can tell it apart and do
 * nothing. The envelope around it is the ordinary one (its organization_id is the caller's, its
 * livemode the endpoint's).
 */
export function sampleData(type: string): Record<string, unknown> {
  const account = SAMPLE_ACCOUNT;
  const data = ((): Record<string, unknown> => {
    switch (type) {
      case 'account.breached':
        return { account, trader_id: null, status: 'breached', reason: 'sample: max_daily_loss', equity: 94500, balance: 95000, peak_equity: 100000 };
      case 'account.passed':
        return { account, trader_id: null, status: 'passed', equity: 110500, balance: 110500 };
      case 'account.flagged':
        return { account, rule: 'large_order', reason: 'sample: an order above 20 lots', position_id: null };
      case 'account.assigned':
        return { account, trader_id: null, previous_trader_id: null };
      case 'account.archived':
        return { account, trader_id: null, previous_status: 'active', status: 'archived' };
      case 'position.opened':
        return { account, position_id: null, symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market', open_price: 1.1, stop_loss: null, take_profit: null };
      case 'position.closed':
        return { account, position_id: null, symbol: 'EURUSD', side: 'buy', volume: 1, open_price: 1.1, close_price: 1.101, profit: 100, reason: 'manual' };
      case 'order.rejected':
        return { account, rule: 'max_lots_per_order', reason: 'sample: 60 lots is above the limit', symbol: 'EURUSD', side: 'buy', volume: 60 };
      case 'credits.low':
        return { remaining: 5, threshold: 10 };
      case 'account.warning':
        return { account, trader_id: null, rule: 'max_daily_loss', used_pct: 80, limit: 95000, equity: 96000 };
      case 'account.locked':
        return { account, rule: 'daily_lock', until: '2026-01-02T00:00:00.000Z' };
      case 'account.reset':
        return { account, trader_id: null, attempt: 2 };
      case 'webhook_endpoint.disabled':
        return { id: null, url: 'https://example.com/sample', reason: 'sample: no successful delivery for too long' };
      case 'payout.created':
        return { account, payout_id: null, amount: 1000, profit_split_pct: 80, trader_share: 800, firm_share: 200, balance_after: 100000 };
      default:
        return { account, status: 'active', program: 'standard', initial_balance: 100000 };
    }
  })();
  return { ...data, test: true };
}
