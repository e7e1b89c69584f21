import type { Migration } from '@propdesk/kit';
import { tradingSchema } from './1001-trading';
import { tradingStatsSchema } from './1002-trading-stats';
import { dailyBalancesSchema } from './1003-daily-balances';

/** Trading engine schema (positions, deals, quotes, equity history, flags). */
export const tradingMigrations: Migration[] = [tradingSchema, tradingStatsSchema, dailyBalancesSchema];
