import type { AsyncServiceImplementation } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import type { AccountsDeps } from '../deps';

/** The trading, market-data and report RPCs of AccountsService (filled by the trading engine). */
export function createTradingHandlers(_deps: AccountsDeps): AsyncServiceImplementation<accountsv1.AccountsServiceServer> {
  return {};
}
