import { AppError, z } from '@propdesk/kit';

/**
 * A program's evaluation terms: the one terms type of the service. They are frozen into
 * accounts.terms when an account is created, so changing a program here never changes the rules
 * of accounts already issued; the trading rules read them back from the account (parseTerms).
 */
export interface ProgramTerms {
  /** Breach when equity falls below start-of-day balance minus this % of the initial balance. */
  maxDailyLossPct: number;
  /** Breach when equity falls below the total-loss floor (this % of the initial balance). */
  maxTotalLossPct: number;
  /** static: floor measured from the initial balance; trailing: from peak equity. */
  totalLossMode: 'static' | 'trailing';
  /** Passed once balance reaches this % over the initial balance and every other objective is met. */
  profitTargetPct: number;
  minTradingDays: number;
  /** 1:leverage; margin = notional / leverage. */
  leverage: number;
  maxLotsPerOrder: number;
  /** null = every instrument. */
  allowedSymbols: string[] | null;
  /** An order above this many lots raises a flag (trading continues); null = no such flag. */
  flagLotsAbove: number | null;
  /** A position held over the weekend raises a flag. */
  flagWeekendHolding: boolean;
  defaultInitialBalance: number;
  currency: string;
}

export type ProgramName = 'standard' | 'aggressive' | 'swing';

export const DEFAULT_PROGRAM: ProgramName = 'standard';

export const PROGRAMS: Readonly<Record<ProgramName, Readonly<ProgramTerms>>> = {
  standard: {
    maxDailyLossPct: 5,
    maxTotalLossPct: 10,
    totalLossMode: 'static',
    profitTargetPct: 10,
    minTradingDays: 4,
    leverage: 100,
    maxLotsPerOrder: 50,
    allowedSymbols: null,
    flagLotsAbove: 20,
    flagWeekendHolding: true,
    defaultInitialBalance: 100_000,
    currency: 'USD',
  },
  // Faster evaluation with a tighter, trailing drawdown: the floor follows peak equity.
  aggressive: {
    maxDailyLossPct: 4,
    maxTotalLossPct: 8,
    totalLossMode: 'trailing',
    profitTargetPct: 8,
    minTradingDays: 3,
    leverage: 50,
    maxLotsPerOrder: 20,
    allowedSymbols: null,
    flagLotsAbove: 10,
    flagWeekendHolding: true,
    defaultInitialBalance: 50_000,
    currency: 'USD',
  },
  // Positions may be held over weekends (no flag); lower leverage, longer minimum.
  swing: {
    maxDailyLossPct: 5,
    maxTotalLossPct: 10,
    totalLossMode: 'static',
    profitTargetPct: 10,
    minTradingDays: 5,
    leverage: 30,
    maxLotsPerOrder: 30,
    allowedSymbols: null,
    flagLotsAbove: 20,
    flagWeekendHolding: false,
    defaultInitialBalance: 100_000,
    currency: 'USD',
  },
};

export function isProgramName(value: string): value is ProgramName {
  return Object.prototype.hasOwnProperty.call(PROGRAMS, value);
}

/** Empty = the default program; an unknown name is invalid_request naming `program`. */
export function resolveProgram(name: string | undefined): { name: ProgramName; terms: ProgramTerms } {
  const wanted = name === undefined || name === '' ? DEFAULT_PROGRAM : name;
  if (!isProgramName(wanted)) {
    throw new AppError('invalid_request', `unknown program; expected one of ${Object.keys(PROGRAMS).join(', ')}`, 'program');
  }
  return { name: wanted, terms: { ...PROGRAMS[wanted], allowedSymbols: PROGRAMS[wanted].allowedSymbols?.slice() ?? null } };
}

const standard = PROGRAMS.standard;

/**
 * Frozen terms as stored. Parsed leniently: a missing or malformed field takes the `standard`
 * program's value, so older or partial term sets still evaluate.
 */
const storedTermsSchema = z.object({
  maxDailyLossPct: z.number().nonnegative().catch(standard.maxDailyLossPct),
  maxTotalLossPct: z.number().nonnegative().catch(standard.maxTotalLossPct),
  totalLossMode: z.enum(['static', 'trailing']).catch(standard.totalLossMode),
  profitTargetPct: z.number().nonnegative().catch(standard.profitTargetPct),
  minTradingDays: z.number().int().nonnegative().catch(standard.minTradingDays),
  leverage: z.number().positive().catch(standard.leverage),
  maxLotsPerOrder: z.number().positive().catch(standard.maxLotsPerOrder),
  allowedSymbols: z.array(z.string()).nullable().catch(() => standard.allowedSymbols?.slice() ?? null),
  flagLotsAbove: z.number().nonnegative().nullable().catch(standard.flagLotsAbove),
  flagWeekendHolding: z.boolean().catch(standard.flagWeekendHolding),
  defaultInitialBalance: z.number().positive().catch(standard.defaultInitialBalance),
  currency: z.string().catch(standard.currency),
}) satisfies z.ZodType<ProgramTerms, z.ZodTypeDef, unknown>;

export function parseTerms(raw: unknown): ProgramTerms {
  return storedTermsSchema.parse(raw !== null && typeof raw === 'object' ? raw : {});
}
