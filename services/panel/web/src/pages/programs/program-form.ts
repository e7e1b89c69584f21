import type { ProgramPhase } from '../../api/types';
import type { ProgramInput } from '../../api/panel-api';
import { noRules, RULE_FIELD_OF_PARAM, rulesDraftOf, rulesInput, type RulesDraft } from './rule-pack-form';

/**
 * The program form's state (every field as typed) and its conversion to the program object of
 * SPEC section 10. Client-side checks mirror the SPEC's rules so a mistake shows next to its field
 * at once; the server checks again and its `param` (e.g. phases[1].profit_target_pct) lands on
 * the same field.
 */

export interface PhaseDraft extends RulesDraft {
  name: string;
  kind: 'evaluation' | 'funded';
  profit_target_pct: string;
  min_trading_days: string;
  consistency_pct: string;
  max_daily_loss_pct: string;
  daily_loss_basis: 'balance' | 'equity' | 'higher';
  max_total_loss_pct: string;
  total_loss_mode: 'static' | 'trailing' | 'trailing_eod';
  trailing_stops_at_initial: boolean;
  leverage: string;
  max_lots_per_order: string;
  allowed_symbols: string;
  flag_lots_above: string;
  flag_weekend_holding: boolean;
  warning_at_pct: string;
  profit_split_pct: string;
  /** SPEC 14, funded phases. */
  payout_requires_approval: boolean;
  requires_kyc: boolean;
}

export interface ProgramDraft {
  name: string;
  description: string;
  initial_balance: string;
  phases: PhaseDraft[];
}

export type FieldErrors = Record<string, string>;

export const MAX_PHASES = 5;

export function newPhase(index: number): PhaseDraft {
  return {
    name: `Phase ${index + 1}`,
    kind: 'evaluation',
    profit_target_pct: '10',
    min_trading_days: '0',
    consistency_pct: '',
    max_daily_loss_pct: '5',
    daily_loss_basis: 'balance',
    max_total_loss_pct: '10',
    total_loss_mode: 'static',
    trailing_stops_at_initial: false,
    leverage: '100',
    max_lots_per_order: '50',
    allowed_symbols: '',
    flag_lots_above: '',
    flag_weekend_holding: false,
    warning_at_pct: '80',
    profit_split_pct: '80',
    payout_requires_approval: false,
    requires_kyc: false,
    ...noRules(),
  };
}

export const emptyProgram = (): ProgramDraft => ({ name: '', description: '', initial_balance: '100000', phases: [newPhase(0)] });

const text = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

export function draftOf(program: { name: string; description: string; initial_balance: number; phases: ProgramPhase[] }): ProgramDraft {
  return {
    name: program.name,
    description: program.description,
    initial_balance: String(program.initial_balance),
    phases: program.phases.map((p, i) => ({
      ...newPhase(i),
      name: p.name,
      kind: p.kind,
      profit_target_pct: text(p.profit_target_pct),
      min_trading_days: text(p.min_trading_days ?? 0),
      consistency_pct: text(p.consistency_pct),
      max_daily_loss_pct: text(p.max_daily_loss_pct),
      daily_loss_basis: p.daily_loss_basis ?? 'balance',
      max_total_loss_pct: text(p.max_total_loss_pct),
      total_loss_mode: p.total_loss_mode ?? 'static',
      trailing_stops_at_initial: p.trailing_stops_at_initial ?? false,
      leverage: text(p.leverage ?? 100),
      max_lots_per_order: text(p.max_lots_per_order ?? 50),
      allowed_symbols: p.allowed_symbols?.join(', ') ?? '',
      flag_lots_above: text(p.flag_lots_above),
      flag_weekend_holding: p.flag_weekend_holding ?? false,
      warning_at_pct: text(p.warning_at_pct),
      profit_split_pct: text(p.profit_split_pct ?? 80),
      payout_requires_approval: p.payout_requires_approval ?? false,
      requires_kyc: p.requires_kyc ?? false,
      ...rulesDraftOf(p),
    })),
  };
}

const NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The form's error key of a server `param`: a rule pack's nested field lands on its own input (phases[0].trading_hours.end). */
export function errorKeyOf(param: string): string {
  const [, at, rest] = /^(phases\[\d+\])\.(.+)$/.exec(param) ?? [];
  const field = rest === undefined ? undefined : RULE_FIELD_OF_PARAM[rest];
  return at !== undefined && field !== undefined ? `${at}.${field}` : param;
}

/** Validates and converts; errors are keyed by the same paths the server's `param` uses. */
export function toProgramInput(draft: ProgramDraft): { input?: ProgramInput; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const num = (path: string, raw: string, rule: (n: number) => boolean, message: string): number | undefined => {
    const value = raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(value) || !rule(value)) {
      errors[path] = message;
      return undefined;
    }
    return value;
  };
  const optional = (path: string, raw: string, rule: (n: number) => boolean, message: string): number | null | undefined =>
    raw.trim() === '' ? null : num(path, raw, rule, message);

  if (!NAME.test(draft.name)) errors.name = 'Use 2–63 lower-case letters, digits or dashes, starting with a letter or digit.';
  const initialBalance = num('initial_balance', draft.initial_balance, (n) => n > 0, 'Enter an amount above 0.');
  if (draft.phases.length < 1 || draft.phases.length > MAX_PHASES) errors.phases = `A program has 1 to ${MAX_PHASES} phases.`;
  const names = new Set<string>();
  const phases = draft.phases.map((p, i): ProgramPhase => {
    const at = (field: string) => `phases[${i}].${field}`;
    const name = p.name.trim();
    if (name.length < 1 || name.length > 40) errors[at('name')] = 'Use 1 to 40 characters.';
    else if (names.has(name)) errors[at('name')] = 'Another phase already has this name.';
    names.add(name);
    if (p.kind === 'funded' && i !== draft.phases.length - 1) errors[at('kind')] = 'Only the last phase may be funded.';
    const phase: ProgramPhase = {
      name,
      kind: p.kind,
      profit_target_pct: p.kind === 'evaluation' ? num(at('profit_target_pct'), p.profit_target_pct, (n) => n > 0, 'An evaluation phase needs a target above 0.') : null,
      min_trading_days: num(at('min_trading_days'), p.min_trading_days, (n) => Number.isInteger(n) && n >= 0, 'Enter a whole number, 0 or more.'),
      consistency_pct: optional(at('consistency_pct'), p.consistency_pct, (n) => n >= 1 && n <= 100, 'Enter 1 to 100, or leave empty.'),
      max_daily_loss_pct: num(at('max_daily_loss_pct'), p.max_daily_loss_pct, (n) => n > 0, 'Enter a percentage above 0.') ?? 0,
      daily_loss_basis: p.daily_loss_basis,
      max_total_loss_pct: num(at('max_total_loss_pct'), p.max_total_loss_pct, (n) => n > 0, 'Enter a percentage above 0.') ?? 0,
      total_loss_mode: p.total_loss_mode,
      trailing_stops_at_initial: p.trailing_stops_at_initial,
      leverage: num(at('leverage'), p.leverage, (n) => n > 0, 'Enter a leverage above 0.'),
      max_lots_per_order: num(at('max_lots_per_order'), p.max_lots_per_order, (n) => n > 0, 'Enter a size above 0.'),
      allowed_symbols: p.allowed_symbols.trim() === '' ? null : p.allowed_symbols.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
      flag_lots_above: optional(at('flag_lots_above'), p.flag_lots_above, (n) => n > 0, 'Enter a size above 0, or leave empty.'),
      flag_weekend_holding: p.flag_weekend_holding,
      warning_at_pct: optional(at('warning_at_pct'), p.warning_at_pct, (n) => n >= 1 && n <= 99, 'Enter 1 to 99, or leave empty.'),
      ...rulesInput(p, (field, message) => (errors[at(field)] = message)),
    };
    if (p.kind === 'funded') {
      phase.profit_split_pct = num(at('profit_split_pct'), p.profit_split_pct, (n) => n >= 1 && n <= 100, 'Enter 1 to 100.');
      phase.payout_requires_approval = p.payout_requires_approval;
      phase.requires_kyc = p.requires_kyc;
    }
    return phase;
  });
  if (Object.keys(errors).length > 0 || initialBalance === undefined) return { errors };
  return { input: { name: draft.name, description: draft.description.trim(), initial_balance: initialBalance, phases }, errors };
}
