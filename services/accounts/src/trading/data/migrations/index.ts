import type { Migration } from '@propdesk/kit';
import { tradingSchema } from './0001-positions-deals-flags';
import { tradingStatsSchema } from './0002-stats';
import { dailyBalancesSchema } from './0003-daily-balances';
import { equityHoursSchema } from './0004-equity-hours';
import { engineLeasesSchema } from './0005-engine-leases';
import { attemptsPayoutsWarningsSchema } from './0006-attempts-payouts-warnings';
import { payoutsLivemodeSchema } from './0007-payouts-livemode';
import { operationsSchema } from './0008-operations';
import { testClockQuotesSchema } from './0009-test-clock-quotes';
import { rulePackSchema } from './0010-rule-pack';

/**
 * The trading module's schema (positions, deals, flags, quotes, equity history, report
 * summaries), applied after the core's. Numbered on their own; until the module had its own
 * folder they were the core's 1001-1003, and a database that recorded those names has them
 * applied (formerNames).
 */
export const tradingMigrations: Migration[] = [
  { ...tradingSchema, formerNames: ['1001-trading'] },
  { ...tradingStatsSchema, formerNames: ['1002-trading-stats'] },
  { ...dailyBalancesSchema, formerNames: ['1003-daily-balances'] },
  equityHoursSchema,
  engineLeasesSchema,
  // Numbered 0005 on the branch that introduced it, before the engine's leases took that number.
  { ...attemptsPayoutsWarningsSchema, formerNames: ['trading-0005-attempts-payouts-warnings'] },
  payoutsLivemodeSchema,
  operationsSchema,
  testClockQuotesSchema,
  rulePackSchema,
];
