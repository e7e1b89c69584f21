import { z } from 'zod';
import { exactNumberSchema, MONEY_STEP } from '../decimal';
import { AppError } from '../errors';
import { issueMessage } from '../issue-message';
import { textSchema } from '../text';
import { MAX_INITIAL_BALANCE } from './account';
import { livemodeSchema } from './common';
import { RULE_PACK_OFF, rulePackAnswerFields, rulePackInputFields, rulePackIssues, type RulePackFields } from './rule-pack';

/**
 * A program's REST shape (SPEC section 10), written once: the request schema the gateway
 * documents and validates with, the schema the accounts service validates again with (gRPC
 * callers), and the stored/answered form (every default filled in). A bad field is
 * invalid_request whose `param` is its path: `phases[1].profit_target_pct`.
 */

export const PHASE_KINDS = ['evaluation', 'funded'] as const;
export const DAILY_LOSS_BASES = ['balance', 'equity', 'higher'] as const;
export const TOTAL_LOSS_MODES = ['static', 'trailing', 'trailing_eod'] as const;
export const PROGRAM_STATUSES = ['active', 'archived'] as const;
export const PROGRAM_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const MAX_PHASES = 5;
const PROGRAM_NAME_MESSAGE = 'must match ^[a-z0-9][a-z0-9-]{1,62}$ (lowercase letters, digits and dashes)';

export type PhaseKind = (typeof PHASE_KINDS)[number];
export type DailyLossBasis = (typeof DAILY_LOSS_BASES)[number];
export type TotalLossMode = (typeof TOTAL_LOSS_MODES)[number];
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];

const pct = (max: number, what: string) =>
  z
    .number({ invalid_type_error: `must be a number (${what})` })
    .finite()
    .gt(0, 'must be greater than 0')
    .max(max, `must be at most ${max}`);
const pctRange = (min: number, max: number) =>
  z
    .number({ invalid_type_error: 'must be a number' })
    .int(`must be a whole number from ${min} to ${max}`)
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`);

const SYMBOL_MESSAGE = 'must be an instrument symbol such as EURUSD';
const symbolSchema = z.string().max(20, SYMBOL_MESSAGE).regex(/^[A-Z0-9._-]{1,20}$/, SYMBOL_MESSAGE);

/** One phase as a client sends it; omitted fields take the defaults of SPEC 10. */
export const programPhaseInputSchema = z.object({
  name: textSchema({ max: 40 }),
  kind: z.enum(PHASE_KINDS),
  profit_target_pct: pct(1000, 'percent of the initial balance').nullable().optional(),
  min_trading_days: z.number().int('must be a whole number').min(0, 'must be at least 0').max(365, 'must be at most 365').default(0),
  consistency_pct: pctRange(1, 100).nullable().default(null),
  max_daily_loss_pct: pct(100, 'percent of the initial balance'),
  daily_loss_basis: z.enum(DAILY_LOSS_BASES).default('balance'),
  max_total_loss_pct: pct(100, 'percent of the initial balance'),
  total_loss_mode: z.enum(TOTAL_LOSS_MODES).default('static'),
  trailing_stops_at_initial: z.boolean().default(false),
  leverage: z.number().int('must be a whole number').min(1, 'must be from 1 to 1000').max(1000, 'must be from 1 to 1000').default(100),
  max_lots_per_order: exactNumberSchema({ unit: 'lots', step: '0.01' }).refine((v) => v <= 1000, 'must be at most 1000').default(50),
  allowed_symbols: z.array(symbolSchema).min(1, 'must name at least one instrument, or be null for every instrument').max(200).nullable().default(null),
  flag_lots_above: exactNumberSchema({ unit: 'lots', step: '0.01' }).nullable().default(null),
  flag_weekend_holding: z.boolean().default(false),
  warning_at_pct: pctRange(1, 99).nullable().default(80),
  profit_split_pct: pctRange(1, 100).nullable().optional(),
  // SPEC 14, funded phases only.
  payout_requires_approval: z.boolean().default(false),
  requires_kyc: z.boolean().default(false),
  // SPEC 15: the rule pack (rule-pack.ts), every rule off unless set.
  ...rulePackInputFields,
});

export type ProgramPhaseInput = z.input<typeof programPhaseInputSchema>;

/** A phase as stored and answered: every field present (SPEC 15's rule pack: rule-pack.ts). */
export interface ProgramPhase extends RulePackFields {
  name: string;
  kind: PhaseKind;
  profit_target_pct: number | null;
  min_trading_days: number;
  consistency_pct: number | null;
  max_daily_loss_pct: number;
  daily_loss_basis: DailyLossBasis;
  max_total_loss_pct: number;
  total_loss_mode: TotalLossMode;
  trailing_stops_at_initial: boolean;
  leverage: number;
  max_lots_per_order: number;
  allowed_symbols: string[] | null;
  flag_lots_above: number | null;
  flag_weekend_holding: boolean;
  warning_at_pct: number | null;
  profit_split_pct: number | null;
  /** SPEC 14: a payout is requested (pending, its amount reserved) and waits for the firm's approval. */
  payout_requires_approval: boolean;
  /** SPEC 14: a payout only to a trader whose KYC status is verified. */
  requires_kyc: boolean;
}

/**
 * Phase fields added after programs were first stored, with the value a phase stored before them
 * means: a stored version is read with these filled in, so every version answers the full shape.
 */
export const PHASE_FIELD_DEFAULTS: Readonly<Partial<ProgramPhase>> = { payout_requires_approval: false, requires_kyc: false, ...RULE_PACK_OFF };

/** A phase as stored (any version), in the full answered shape. */
export function storedPhase(phase: ProgramPhase): ProgramPhase {
  return { ...PHASE_FIELD_DEFAULTS, ...phase };
}

/** Fields a funded phase alone may set: on an evaluation phase only their off value is taken. */
const FUNDED_ONLY_FLAGS = ['payout_requires_approval', 'requires_kyc'] as const;

const phasesSchema = z
  .array(programPhaseInputSchema)
  .min(1, 'must hold 1 to 5 phases')
  .max(MAX_PHASES, 'must hold 1 to 5 phases')
  .superRefine((phases, ctx) => {
    const names = new Set<string>();
    phases.forEach((phase, i) => {
      if (names.has(phase.name)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'name'], message: 'must be unique in the program' });
      names.add(phase.name);
      for (const issue of rulePackIssues(phase)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, issue.field], message: issue.message });
      if (phase.kind === 'evaluation') {
        if (phase.profit_target_pct === undefined || phase.profit_target_pct === null) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'profit_target_pct'], message: 'is required for an evaluation phase' });
        }
        if (phase.profit_split_pct !== undefined && phase.profit_split_pct !== null) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'profit_split_pct'], message: 'is for a funded phase only' });
        }
        for (const flag of FUNDED_ONLY_FLAGS) {
          if (phase[flag]) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, flag], message: 'is for a funded phase only (it pays out)' });
        }
      } else {
        if (phase.profit_target_pct !== undefined && phase.profit_target_pct !== null) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'profit_target_pct'], message: 'must be absent or null for a funded phase (it has no target)' });
        }
        if (i !== phases.length - 1) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'kind'], message: 'funded is allowed only for the last phase' });
        }
      }
    });
  })
  .transform((phases): ProgramPhase[] =>
    phases.map((p) => ({
      ...p,
      profit_target_pct: p.kind === 'evaluation' ? (p.profit_target_pct ?? null) : null,
      profit_split_pct: p.kind === 'funded' ? (p.profit_split_pct ?? 80) : null,
    })),
  );

const programFields = {
  description: textSchema({ min: 0, max: 500, lineBreaks: true }).default(''),
  currency: z.literal('USD', { errorMap: () => ({ message: 'must be USD' }) }).default('USD'),
  initial_balance: exactNumberSchema({ unit: 'USD', step: MONEY_STEP, max: MAX_INITIAL_BALANCE }),
  phases: phasesSchema,
};

/** POST /v1/programs. */
export const programCreateSchema = z.object({
  name: z.string().max(63, PROGRAM_NAME_MESSAGE).regex(PROGRAM_NAME_PATTERN, PROGRAM_NAME_MESSAGE),
  ...programFields,
});

/** PUT /v1/programs/{name}: a full replacement; the name is the path's. */
export const programUpdateSchema = z.object(programFields);

export type ProgramCreateInput = z.output<typeof programCreateSchema>;
export type ProgramUpdateInput = z.output<typeof programUpdateSchema>;

/** The program as answered (REST, and the gRPC Struct). */
export interface RestProgram {
  name: string;
  version: number;
  status: ProgramStatus;
  builtin: boolean;
  description: string;
  currency: 'USD';
  initial_balance: number;
  phases: ProgramPhase[];
  created_at: string;
  /** SPEC 13: the caller's mode (a built-in, visible in both, carries the caller's). */
  livemode: boolean;
}

export const restProgramPhaseSchema = z
  .object({
    name: z.string(),
    kind: z.enum(PHASE_KINDS),
    profit_target_pct: z.number().nullable(),
    min_trading_days: z.number().int(),
    consistency_pct: z.number().nullable(),
    max_daily_loss_pct: z.number(),
    daily_loss_basis: z.enum(DAILY_LOSS_BASES),
    max_total_loss_pct: z.number(),
    total_loss_mode: z.enum(TOTAL_LOSS_MODES),
    trailing_stops_at_initial: z.boolean(),
    leverage: z.number().int(),
    max_lots_per_order: z.number(),
    allowed_symbols: z.array(z.string()).nullable(),
    flag_lots_above: z.number().nullable(),
    flag_weekend_holding: z.boolean(),
    warning_at_pct: z.number().nullable(),
    profit_split_pct: z.number().nullable(),
    payout_requires_approval: z.boolean(),
    requires_kyc: z.boolean(),
    ...rulePackAnswerFields,
  })
  .strict();

export const restProgramSchema = z
  .object({
    name: z.string(),
    version: z.number().int().min(1),
    status: z.enum(PROGRAM_STATUSES),
    builtin: z.boolean(),
    description: z.string(),
    currency: z.literal('USD'),
    initial_balance: z.number(),
    phases: z.array(restProgramPhaseSchema),
    created_at: z.string().datetime(),
    livemode: livemodeSchema.describe("false in test mode; a built-in program carries the caller's mode"),
  })
  .strict();

/** A zod issue path as a client reads it: `phases[1].profit_target_pct`. */
export function issueParam(path: ReadonlyArray<string | number>): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
  return text === '' ? 'body' : text;
}

/** Validates with a program schema; the first problem is invalid_request naming its path. */
export function parseProgramBody<S extends z.ZodTypeAny>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data as z.output<S>;
  const issue = parsed.error.issues[0];
  const param = issueParam(issue?.path ?? []);
  throw new AppError('invalid_request', `${param} ${issue ? issueMessage(issue) : 'is invalid'}`, param);
}
