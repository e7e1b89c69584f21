import { execute, scopeBind, selectOne, selectRows, storedPhase, toNumber, type ProgramPhase, type ProgramStatus, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

/** One version of an organization's program of one mode, as stored (phases in their REST shape). */
export interface StoredProgram {
  livemode: boolean;
  name: string;
  version: number;
  status: ProgramStatus;
  description: string;
  currency: string;
  initialBalance: number;
  phases: ProgramPhase[];
  createdAt: Date;
}

interface ProgramRow {
  livemode: boolean;
  name: string;
  version: number;
  status: ProgramStatus;
  description: string;
  currency: string;
  initial_balance: string;
  phases: ProgramPhase[];
  created_at: Date;
}

const COLUMNS = `v.livemode, v.name, v.version, p.status, v.description, v.currency, v.initial_balance, v.phases, v.created_at`;

function toProgram(row: ProgramRow): StoredProgram {
  return {
    livemode: row.livemode,
    name: row.name,
    version: row.version,
    status: row.status,
    description: row.description,
    currency: row.currency,
    initialBalance: toNumber(row.initial_balance),
    // Versions stored before a phase field existed answer its default (kit PHASE_FIELD_DEFAULTS).
    phases: row.phases.map(storedPhase),
    createdAt: row.created_at,
  };
}

export interface ProgramVersionInput {
  description: string;
  currency: string;
  initialBalance: number;
  phases: ProgramPhase[];
}

/** Version 1 of a new program; null when the organization already has one of that name in this mode. */
export async function insertProgram(db: Sequelize, tx: Transaction, scope: TenantScope, name: string, input: ProgramVersionInput): Promise<StoredProgram | null> {
  const created = await selectOne<{ name: string }>(
    db,
    `INSERT INTO programs (organization_id, livemode, name, latest_version) VALUES ($org, $livemode, $name, 1)
     ON CONFLICT (organization_id, livemode, name) DO NOTHING RETURNING name`,
    { ...scopeBind(scope), name },
    tx,
  );
  if (!created) return null;
  await insertVersion(db, tx, scope, name, 1, input);
  return findProgram(db, scope, name, 1, tx);
}

async function insertVersion(db: Sequelize, tx: Transaction, scope: TenantScope, name: string, version: number, input: ProgramVersionInput): Promise<void> {
  await execute(
    db,
    `INSERT INTO program_versions (organization_id, livemode, name, version, description, currency, initial_balance, phases)
     VALUES ($org, $livemode, $name, $version, $description, $currency, $balance, CAST($phases AS jsonb))`,
    {
      ...scopeBind(scope),
      name,
      version,
      description: input.description,
      currency: input.currency,
      balance: input.initialBalance,
      phases: JSON.stringify(input.phases),
    },
    tx,
  );
}

/** The next version of an existing program (its row locked, so concurrent updates number in turn); null when unknown. */
export async function insertNextVersion(db: Sequelize, tx: Transaction, scope: TenantScope, name: string, input: ProgramVersionInput): Promise<StoredProgram | null> {
  const row = await selectOne<{ latest_version: number }>(
    db,
    `UPDATE programs SET latest_version = latest_version + 1, updated_at = now()
      WHERE organization_id = $org AND livemode = $livemode AND name = $name RETURNING latest_version`,
    { ...scopeBind(scope), name },
    tx,
  );
  if (!row) return null;
  await insertVersion(db, tx, scope, name, row.latest_version, input);
  return findProgram(db, scope, name, row.latest_version, tx);
}

/** One version (null = the latest) of the organization's program of the scope's mode. */
export async function findProgram(db: Sequelize, scope: TenantScope, name: string, version: number | null, tx?: Transaction): Promise<StoredProgram | null> {
  const row = await selectOne<ProgramRow>(
    db,
    `SELECT ${COLUMNS} FROM programs p
       JOIN program_versions v ON v.organization_id = p.organization_id AND v.livemode = p.livemode AND v.name = p.name
      WHERE p.organization_id = $org AND p.livemode = $livemode AND p.name = $name AND v.version = coalesce(CAST($version AS integer), p.latest_version)`,
    { ...scopeBind(scope), name, version },
    tx,
  );
  return row ? toProgram(row) : null;
}

/** The latest version of each program, in name order after `after`. */
export async function listPrograms(db: Sequelize, scope: TenantScope, status: ProgramStatus | null, after: string, limit: number): Promise<StoredProgram[]> {
  const rows = await selectRows<ProgramRow>(
    db,
    `SELECT ${COLUMNS} FROM programs p
       JOIN program_versions v ON v.organization_id = p.organization_id AND v.livemode = p.livemode AND v.name = p.name AND v.version = p.latest_version
      WHERE p.organization_id = $org AND p.livemode = $livemode AND p.name > $after AND (CAST($status AS text) IS NULL OR p.status = $status)
      ORDER BY p.name LIMIT $limit`,
    { ...scopeBind(scope), after, status, limit },
  );
  return rows.map(toProgram);
}

/** Archives a program; null when unknown. */
export async function archiveProgram(db: Sequelize, scope: TenantScope, name: string, tx?: Transaction): Promise<StoredProgram | null> {
  const row = await selectOne<{ name: string }>(
    db,
    `UPDATE programs SET status = 'archived', updated_at = now() WHERE organization_id = $org AND livemode = $livemode AND name = $name RETURNING name`,
    { ...scopeBind(scope), name },
    tx,
  );
  return row ? findProgram(db, scope, name, null, tx) : null;
}
