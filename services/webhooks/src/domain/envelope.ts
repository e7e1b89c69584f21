export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

/** The exact bytes sent on every attempt: serialised once, stored, never rebuilt. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify({
    id: envelope.id,
    type: envelope.type,
    created_at: envelope.created_at,
    organization_id: envelope.organization_id,
    data: envelope.data,
  });
}

/** Sample data for a test delivery, shaped like the real event of that type. */
export function sampleData(type: string): Record<string, unknown> {
  const account = 1000001;
  switch (type) {
    case 'account.breached':
      return { account, trader_id: null, status: 'breached', reason: 'max_daily_loss', equity: '94500.00', balance: '95000.00', peak_equity: '100000.00' };
    case 'account.passed':
      return { account, trader_id: null, status: 'passed', equity: '110500.00', balance: '110500.00' };
    case 'account.flagged':
      return { account, trader_id: null, rule: 'max_order_volume', detail: 'order above 20 lots' };
    case 'account.assigned':
      return { account, trader_id: '00000000-0000-0000-0000-000000000000' };
    case 'account.archived':
      return { account, status: 'archived' };
    case 'position.opened':
    case 'position.closed':
      return { account, position_id: '00000000-0000-0000-0000-000000000000', symbol: 'EURUSD', side: 'buy', volume: 1 };
    case 'order.rejected':
      return { account, symbol: 'EURUSD', side: 'buy', volume: 60, rule: 'max_volume_per_order' };
    case 'credits.low':
      return { credits: 1 };
    default:
      return { account, status: 'active', program: 'standard', initial_balance: '100000.00' };
  }
}
