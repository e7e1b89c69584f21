import { selectOne, selectRows, toNumber, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';

export interface Flag {
  id: string;
  seq: number;
  accountNumber: number;
  rule: string;
  action: 'flag' | 'breach';
  reason: string;
  evidence: Record<string, unknown>;
  createdAt: Date;
  /** The account's attempt the flag belongs to (SPEC 10). */
  attempt: number;
  /** SPEC 14: a breach an operator reinstated, when and why (null otherwise). */
  reinstatedAt: Date | null;
  reinstatedReason: string | null;
}

interface FlagRow {
  id: string;
  seq: string;
  account_number: string;
  rule: string;
  action: 'flag' | 'breach';
  reason: string;
  evidence: Record<string, unknown>;
  created_at: Date;
  attempt: number;
  reinstated_at: Date | null;
  reinstated_reason: string | null;
}

const COLUMNS = 'id, seq, account_number, rule, action, reason, evidence, created_at, attempt, reinstated_at, reinstated_reason';

function toFlag(row: FlagRow): Flag {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    accountNumber: toNumber(row.account_number),
    rule: row.rule,
    action: row.action,
    reason: row.reason,
    evidence: row.evidence ?? {},
    createdAt: row.created_at,
    attempt: row.attempt ?? 1,
    reinstatedAt: row.reinstated_at ?? null,
    reinstatedReason: row.reinstated_reason ?? null,
  };
}

export interface NewFlag {
  accountNumber: number;
  organizationId: string;
  rule: string;
  action: 'flag' | 'breach';
  reason: string;
  evidence: Record<string, unknown>;
  /** Rows with the same key are recorded once (e.g. one weekend flag per position). */
  dedupeKey?: string;
  createdAt: Date;
}

/** Inserts a flag; null when a flag with the same dedupe key already exists. */
export async function insertFlag(sequelize: Sequelize, tx: Transaction, f: NewFlag): Promise<Flag | null> {
  const { sql, bind } = flagStatement(f);
  const row = await selectOne<FlagRow>(sequelize, `${sql} RETURNING ${COLUMNS}`, bind, tx);
  return row ? toFlag(row) : null;
}

/** insertFlag's statement, to run with others (executeTogether). */
export function flagStatement(f: NewFlag): Statement {
  return {
    sql: `INSERT INTO flags (account_number, organization_id, rule, action, reason, evidence, dedupe_key, created_at)
     VALUES ($accountNumber, $organizationId, $rule, $action, $reason, $evidence::jsonb, $dedupeKey, $createdAt)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    bind: {
      accountNumber: f.accountNumber,
      organizationId: f.organizationId,
      rule: f.rule,
      action: f.action,
      reason: f.reason,
      evidence: JSON.stringify(f.evidence),
      dedupeKey: f.dedupeKey ?? null,
      createdAt: f.createdAt,
    },
  };
}

/** Many flags' insert, to run with others (executeTogether); a flag whose dedupe key exists is not recorded again. */
export function flagsStatement(flags: ReadonlyArray<NewFlag & { dedupeKey: string }>): Statement {
  return {
    sql: `INSERT INTO flags (account_number, organization_id, rule, action, reason, evidence, dedupe_key, created_at)
     SELECT * FROM unnest($flagAccounts::bigint[], $flagOrgs::uuid[], $flagRules::text[], $flagActions::text[], $flagReasons::text[], $flagEvidences::jsonb[],
                          $flagKeys::text[], $flagTimes::timestamptz[])
     ON CONFLICT (dedupe_key) DO NOTHING`,
    bind: {
      flagAccounts: flags.map((f) => f.accountNumber),
      flagOrgs: flags.map((f) => f.organizationId),
      flagRules: flags.map((f) => f.rule),
      flagActions: flags.map((f) => f.action),
      flagReasons: flags.map((f) => f.reason),
      flagEvidences: flags.map((f) => JSON.stringify(f.evidence)),
      flagKeys: flags.map((f) => f.dedupeKey),
      flagTimes: flags.map((f) => f.createdAt.toISOString()),
    },
  };
}

/** Inserts many flags in one statement; answers the dedupe keys of those recorded (the others existed). */
export async function insertFlags(sequelize: Sequelize, tx: Transaction, flags: Array<NewFlag & { dedupeKey: string }>): Promise<Set<string>> {
  if (flags.length === 0) return new Set();
  const { sql, bind } = flagsStatement(flags);
  const rows = await selectRows<{ dedupe_key: string }>(sequelize, `${sql} RETURNING dedupe_key`, bind, tx);
  return new Set(rows.map((r) => r.dedupe_key));
}

export async function listFlags(sequelize: Sequelize, accountNumber: number, afterSeq: number, limit: number, action?: 'flag' | 'breach'): Promise<Flag[]> {
  const rows = await selectRows<FlagRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM flags WHERE account_number = $accountNumber AND seq > $afterSeq${action ? ' AND action = $action' : ''}
      ORDER BY seq LIMIT $limit`,
    action ? { accountNumber, afterSeq, limit, action } : { accountNumber, afterSeq, limit },
  );
  return rows.map(toFlag);
}

/**
 * A reinstatement (SPEC 14), inside the caller's transaction: the current attempt's breach stays in
 * the flags, marked with when and why it was reinstated. Its dedupe key (one breach per attempt) is
 * let go, so a later breach of the same attempt is recorded too. Null when the attempt has no
 * breach left to reinstate.
 */
export async function markBreachReinstated(
  sequelize: Sequelize,
  tx: Transaction,
  accountNumber: number,
  attempt: number,
  at: Date,
  reason: string,
): Promise<Flag | null> {
  const row = await selectOne<FlagRow>(
    sequelize,
    `UPDATE flags SET reinstated_at = $at, reinstated_reason = $reason, dedupe_key = NULL
      WHERE id = (SELECT id FROM flags WHERE account_number = $accountNumber AND attempt = $attempt AND action = 'breach' AND reinstated_at IS NULL
                   ORDER BY seq DESC LIMIT 1)
      RETURNING ${COLUMNS}`,
    { accountNumber, attempt, at, reason },
    tx,
  );
  return row ? toFlag(row) : null;
}
