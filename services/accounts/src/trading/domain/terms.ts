import { z } from '@propdesk/kit';

/**
 * The evaluation terms frozen into an account (the `standard` program's shape). Parsed leniently:
 * a missing field takes the `standard` default, so older or partial term sets still evaluate.
 */
const termsSchema = z.object({
  maxDailyLossPct: z.number().nonnegative().catch(5).default(5),
  maxTotalLossPct: z.number().nonnegative().catch(10).default(10),
  totalLossMode: z.enum(['static', 'trailing']).catch('static').default('static'),
  profitTargetPct: z.number().nonnegative().catch(10).default(10),
  minTradingDays: z.number().int().nonnegative().catch(4).default(4),
  leverage: z.number().positive().catch(100).default(100),
  maxLotsPerOrder: z.number().positive().catch(50).default(50),
  allowedSymbols: z.array(z.string()).nullable().catch(null).default(null),
  flagLotsAbove: z.number().nonnegative().nullable().catch(20).default(20),
  flagWeekendHolding: z.boolean().catch(true).default(true),
  defaultInitialBalance: z.number().positive().catch(100_000).default(100_000),
  currency: z.string().catch('USD').default('USD'),
});

export type TradingTerms = z.infer<typeof termsSchema>;

export function parseTerms(raw: unknown): TradingTerms {
  const parsed = termsSchema.safeParse(raw && typeof raw === 'object' ? raw : {});
  return parsed.success ? parsed.data : termsSchema.parse({});
}

/** Terms as snake_case for Structs that go to REST as they are. */
export function termsToSnake(terms: TradingTerms): Record<string, unknown> {
  return {
    max_daily_loss_pct: terms.maxDailyLossPct,
    max_total_loss_pct: terms.maxTotalLossPct,
    total_loss_mode: terms.totalLossMode,
    profit_target_pct: terms.profitTargetPct,
    min_trading_days: terms.minTradingDays,
    leverage: terms.leverage,
    max_lots_per_order: terms.maxLotsPerOrder,
    allowed_symbols: terms.allowedSymbols,
    flag_lots_above: terms.flagLotsAbove,
    flag_weekend_holding: terms.flagWeekendHolding,
    currency: terms.currency,
  };
}
