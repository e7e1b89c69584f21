import {
  AppError,
  changedFields,
  createdFields,
  cursorScope,
  effectTransaction,
  pageSize,
  parseProgramBody,
  programCreateSchema,
  programUpdateSchema,
  PROGRAM_NAME_PATTERN,
  PROGRAM_STATUSES,
  recordAudit,
  type ProgramPhase,
  type ProgramStatus,
  type RestProgram,
  type ScopeFields,
  type TenantScope,
} from '@propdesk/kit';
import { archiveProgram as archiveProgramRow, findProgram, insertNextVersion, insertProgram, listPrograms as listProgramRows, type StoredProgram } from '../data/programs';
import { builtinPhase, isProgramName, PROGRAMS, DEFAULT_PROGRAM, termsOfPhase, type ProgramTerms } from '../domain/programs';
import { tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { programAudit } from './audit-entries';

/** When the built-ins' one version is dated (they are part of the product, not of an organization). */
const BUILTIN_CREATED_AT = '2026-01-01T00:00:00.000Z';

const BUILTIN_DESCRIPTIONS: Record<string, string> = {
  standard: 'One evaluation phase: 10% target, 5% daily and 10% static total loss, 4 trading days.',
  aggressive: 'One evaluation phase: 8% target, 4% daily and 8% trailing total loss, 3 trading days.',
  swing: 'One evaluation phase: 10% target, 5% daily and 10% static total loss, 5 trading days, weekend holding allowed.',
};

/** The built-ins as a live caller sees them; builtin() gives them the caller's mode (SPEC 13: visible in both). */
const BUILTINS: RestProgram[] = (Object.keys(PROGRAMS) as Array<keyof typeof PROGRAMS>).map((name) => ({
  name,
  version: 1,
  status: 'active',
  builtin: true,
  description: BUILTIN_DESCRIPTIONS[name] ?? '',
  currency: 'USD',
  initial_balance: PROGRAMS[name].defaultInitialBalance,
  phases: [builtinPhase(PROGRAMS[name])],
  created_at: BUILTIN_CREATED_AT,
  livemode: true,
}));

function builtin(name: string, scope: TenantScope): RestProgram | undefined {
  const found = BUILTINS.find((p) => p.name === name);
  return found && { ...found, livemode: scope.livemode };
}

/** A built-in's name is taken in both modes. */
const isBuiltin = (name: string): boolean => BUILTINS.some((p) => p.name === name);

function toRest(program: StoredProgram): RestProgram {
  return {
    name: program.name,
    version: program.version,
    status: program.status,
    builtin: false,
    description: program.description,
    currency: 'USD',
    initial_balance: program.initialBalance,
    phases: program.phases,
    created_at: program.createdAt.toISOString(),
    livemode: program.livemode,
  };
}

/** A program's fields as its audit entries record them (the whole phases list, as REST shows it). */
function auditedFields(program: RestProgram): Record<string, unknown> {
  return {
    version: program.version,
    status: program.status,
    description: program.description,
    currency: program.currency,
    initial_balance: program.initial_balance,
    phases: program.phases,
  };
}

function programName(name: string): string {
  if (!PROGRAM_NAME_PATTERN.test(name)) throw new AppError('not_found', 'program not found');
  return name;
}

const notFound = () => new AppError('not_found', 'program not found');

/** A custom program of the caller's mode: its name is unique per organization and mode. */
export async function createProgram(deps: AccountsDeps, input: ScopeFields & { program: unknown }): Promise<RestProgram> {
  const scope = tenantScope(input);
  const body = parseProgramBody(programCreateSchema, input.program);
  if (isBuiltin(body.name)) throw new AppError('conflict', `program ${body.name} is a built-in program; choose another name`, 'name');
  // The answer is made inside the effect transaction: it is what a retry with the same Idempotency-Key replays.
  return effectTransaction(deps.sequelize, async (tx) => {
    const version = { description: body.description, currency: body.currency, initialBalance: body.initial_balance, phases: body.phases };
    const created = await insertProgram(deps.sequelize, tx, scope, body.name, version);
    if (!created) throw new AppError('conflict', `a program named ${body.name} already exists`, 'name');
    const program = toRest(created);
    await recordAudit(tx, programAudit(scope, program.name, 'program.create', createdFields(auditedFields(program))));
    return program;
  });
}

/** A full replacement: the next version. A built-in is 409 conflict. */
export async function updateProgram(deps: AccountsDeps, input: ScopeFields & { name: string; program: unknown }): Promise<RestProgram> {
  const scope = tenantScope(input);
  if (isBuiltin(input.name)) throw new AppError('conflict', `program ${input.name} is built in and cannot be changed`);
  const name = programName(input.name);
  const raw = input.program;
  if (raw !== null && typeof raw === 'object' && 'name' in raw && (raw as { name: unknown }).name !== name) {
    throw new AppError('invalid_request', 'name must be the program of the path (a program cannot be renamed)', 'name');
  }
  const body = parseProgramBody(programUpdateSchema, raw);
  return effectTransaction(deps.sequelize, async (tx) => {
    const version = { description: body.description, currency: body.currency, initialBalance: body.initial_balance, phases: body.phases };
    const updated = await insertNextVersion(deps.sequelize, tx, scope, name, version);
    // The version it replaces, as this transaction's row lock leaves it.
    const previous = updated && (await findProgram(deps.sequelize, scope, name, updated.version - 1, tx));
    if (!previous || !updated) throw notFound();
    const program = toRest(updated);
    await recordAudit(tx, programAudit(scope, name, 'program.update', changedFields(auditedFields(toRest(previous)), auditedFields(program))));
    return program;
  });
}

export async function getProgram(deps: AccountsDeps, input: ScopeFields & { name: string; version: number }): Promise<RestProgram> {
  const scope = tenantScope(input);
  if (!Number.isInteger(input.version) || input.version < 0) throw new AppError('invalid_request', 'version must be a positive integer', 'version');
  const fixed = builtin(input.name, scope);
  if (fixed) {
    if (input.version > 1) throw notFound();
    return fixed;
  }
  const found = await findProgram(deps.sequelize, scope, programName(input.name), input.version === 0 ? null : input.version);
  if (!found) throw notFound();
  return toRest(found);
}

export async function archiveProgram(deps: AccountsDeps, input: ScopeFields & { name: string }): Promise<RestProgram> {
  const scope = tenantScope(input);
  if (isBuiltin(input.name)) throw new AppError('conflict', `program ${input.name} is built in and cannot be archived`);
  const name = programName(input.name);
  return effectTransaction(deps.sequelize, async (tx) => {
    const previous = await findProgram(deps.sequelize, scope, name, null, tx);
    const archived = await archiveProgramRow(deps.sequelize, scope, name, tx);
    if (!previous || !archived) throw notFound();
    // Archiving an archived program changes nothing, and so records nothing.
    if (previous.status !== archived.status) await recordAudit(tx, programAudit(scope, name, 'program.archive', { status: [previous.status, archived.status] }));
    return toRest(archived);
  });
}

/** Name order, built-ins included (in the caller's mode); the cursor is the last name shown. */
export async function listPrograms(
  deps: AccountsDeps,
  input: ScopeFields & { pageSize: number; pageToken: string; status: string },
): Promise<{ programs: RestProgram[]; nextPageToken: string }> {
  const tenant = tenantScope(input);
  let status: ProgramStatus | null = null;
  if (input.status !== '') {
    if (!(PROGRAM_STATUSES as readonly string[]).includes(input.status)) {
      throw new AppError('invalid_request', `status must be one of ${PROGRAM_STATUSES.join(', ')}`, 'status');
    }
    status = input.status as ProgramStatus;
  }
  const size = pageSize(input.pageSize);
  const scope = `programs:${cursorScope(tenant)}:${status ?? ''}`;
  let after = '';
  if (input.pageToken) {
    const position = deps.cursors.decode<{ n?: unknown }>(scope, input.pageToken);
    if (typeof position?.n !== 'string') throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    after = position.n;
  }
  const stored = (await listProgramRows(deps.sequelize, tenant, status, after, size + 1)).map(toRest);
  const fixed = BUILTINS.filter((p) => p.name > after && (status === null || p.status === status)).map((p) => ({ ...p, livemode: tenant.livemode }));
  const all = [...stored, ...fixed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const page = all.slice(0, size);
  const nextPageToken = all.length > size ? deps.cursors.encode(scope, { n: page[page.length - 1].name }) : '';
  return { programs: page, nextPageToken };
}

/** What an account is provisioned from: a program version and the terms of one of its phases. */
export interface ProgramForAccounts {
  name: string;
  version: number;
  initialBalance: number;
  currency: string;
  phases: ProgramPhase[];
}

/**
 * The program new accounts are created from: a built-in or an active program of the
 * organization in the scope's mode (latest version). Empty = the default; unknown (another
 * mode's included): invalid_request naming `program`; archived: conflict.
 */
export async function programForNewAccounts(deps: AccountsDeps, scope: TenantScope, name: string | undefined): Promise<ProgramForAccounts> {
  const wanted = name === undefined || name === '' ? DEFAULT_PROGRAM : name;
  if (isProgramName(wanted)) {
    const terms = PROGRAMS[wanted];
    return { name: wanted, version: 1, initialBalance: terms.defaultInitialBalance, currency: terms.currency, phases: [builtinPhase(terms)] };
  }
  const found = PROGRAM_NAME_PATTERN.test(wanted) ? await findProgram(deps.sequelize, scope, wanted, null) : null;
  if (!found) throw new AppError('invalid_request', `unknown program ${JSON.stringify(wanted.slice(0, 64))}; GET /v1/programs lists them`, 'program');
  if (found.status === 'archived') throw new AppError('conflict', `program ${wanted} is archived: no new accounts are created from it`);
  return { name: found.name, version: found.version, initialBalance: found.initialBalance, currency: found.currency, phases: found.phases };
}

/** A frozen program version (for the next phase of an account, in its scope): built-ins have one version. */
export async function programVersion(deps: Pick<AccountsDeps, 'sequelize'>, scope: TenantScope, name: string, version: number): Promise<ProgramForAccounts | null> {
  if (isProgramName(name)) {
    const terms = PROGRAMS[name];
    return { name, version: 1, initialBalance: terms.defaultInitialBalance, currency: terms.currency, phases: [builtinPhase(terms)] };
  }
  const found = await findProgram(deps.sequelize, scope, name, version);
  return found && { name: found.name, version: found.version, initialBalance: found.initialBalance, currency: found.currency, phases: found.phases };
}

/** The frozen terms of one phase of a program version. */
export function phaseTerms(program: ProgramForAccounts, index: number): ProgramTerms {
  if (isProgramName(program.name)) return { ...PROGRAMS[program.name], allowedSymbols: PROGRAMS[program.name].allowedSymbols?.slice() ?? null };
  return termsOfPhase(program.phases[index], program.initialBalance, program.currency);
}
