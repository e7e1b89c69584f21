import { randomBytes } from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { currentContext, SYSTEM_ACTOR } from './context';
import { execute, type Statement } from './sql';
import { sendAtCommit } from './transaction';
import type { TenantScope } from './tenant';

/**
 * The kinds of object a change is made to (an entry's `target.type`, SPEC 14's list with the
 * positions opened and closed through the API and the organization its team belongs to): one
 * list, which the writers are typed against and the audit log's `target_type` filter accepts.
 */
export const AUDIT_TARGET_TYPES = [
  'account',
  'trader',
  'program',
  'position',
  'payout',
  'webhook',
  'api_key',
  'user',
  'organization',
  'news_event',
  'test_clock',
] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

const TARGET_TYPES: ReadonlySet<string> = new Set(AUDIT_TARGET_TYPES);

/** Whether `type` is a kind of object the audit log records changes to. */
export function isAuditTargetType(type: string): type is AuditTargetType {
  return TARGET_TYPES.has(type);
}

/**
 * The audit log (SPEC 14): one entry per change made through the REST API, the panel or the CLI,
 * written by the service that owns the change, in the change's own transaction, the way the
 * outbox writes an event. A change that rolls back leaves no entry; an entry that cannot be
 * written fails the change.
 *
 *   await recordAudit(tx, { scope, action: 'account.archive', target: { type: 'account', id: String(number) },
 *                           changes: { status: [before.status, 'archived'] } });
 *
 * Who did it (actor), the request id and the client IP come from the request context (the kit's
 * gRPC server reads them from the caller's metadata); a call that names no actor is the system's.
 * Secrets never reach the table: fields named in SECRET_FIELD_NAMES are removed from `changes`
 * here, at any depth, whatever the caller passed.
 */
export interface AuditChange {
  /** The organization and mode the change belongs to (kit TenantScope). */
  scope: TenantScope;
  /** `resource.verb`: 'account.halt', 'payout.approve', 'api_key.revoke'. */
  action: string;
  /** target.type is the resource ('account'), id the object's id as text ('1000001', a program's name). */
  target: { type: AuditTargetType; id: string };
  /** field -> [before, after]; fields left out did not change. */
  changes?: Record<string, [unknown, unknown]>;
}

/**
 * Field names whose values are secrets, compared without case, underscores or dashes (so
 * `previous_secret`, `previousSecret` and `PREVIOUS-SECRET` are one name). One list, here: no
 * caller strips anything itself.
 */
export const SECRET_FIELD_NAMES = [
  'token',
  'token_sha256',
  'session_token',
  'password',
  'password_hash',
  'executor_password',
  'sealed_password',
  'secret',
  'previous_secret',
  'secret_sealed',
  'previous_secret_sealed',
  'key_hash',
  'credentials',
  'authorization',
  'cookie',
] as const;

const normalized = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const SECRET_NAMES = new Set(SECRET_FIELD_NAMES.map(normalized));

/** Whether a field of this name is never recorded. */
export function isSecretFieldName(name: string): boolean {
  return SECRET_NAMES.has(normalized(name));
}

/** A JSON value with every secret field removed, at any depth (arrays included). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value === undefined ? null : value;
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!isSecretFieldName(key) && inner !== undefined) kept[key] = withoutSecrets(inner);
  }
  return kept;
}

let writing = true;

/**
 * Benchmarks only (bench/audit.ts sets BENCH_SKIP_AUDIT_ENTRIES on the accounts service): from
 * here on this process writes no audit entry, so a write route's throughput is measured with and
 * without its entry. Never in a deployment: the audit log would miss every change.
 */
export function skipAuditEntriesForBenchmarks(): void {
  writing = false;
}

/** An entry's id: `aud_`, the milliseconds since 1970 (12 hex digits), then 80 random bits, increasing within a process. */
let lastMs = 0;
let lastRandom = 0n;
const RANDOM_BITS = 80n;
const RANDOM_LIMIT = 1n << RANDOM_BITS;

export function newAuditId(now: number = Date.now()): string {
  let random: bigint;
  if (now <= lastMs) {
    // Same millisecond (or a clock that stepped back): the next number after the last one, so
    // ids made by one process sort in the order they were made.
    now = lastMs;
    random = (lastRandom + 1n) % RANDOM_LIMIT;
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  }
  lastMs = now;
  lastRandom = random;
  return `aud_${now.toString(16).padStart(12, '0')}${random.toString(16).padStart(20, '0')}`;
}

const ACTION = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;
const MAX_TARGET_ID = 200;

function checked(change: AuditChange): AuditChange {
  // A wrong call is a bug of the caller: it fails the change rather than leave a bad entry.
  if (!ACTION.test(change.action)) throw new Error(`audit action "${change.action}" is not resource.verb`);
  if (!isAuditTargetType(change.target.type)) throw new Error(`audit target type "${change.target.type}" is not one of AUDIT_TARGET_TYPES`);
  if (change.target.id === '' || change.target.id.length > MAX_TARGET_ID) throw new Error('audit target id must be 1 to 200 characters');
  return change;
}

function sequelizeOf(tx: Transaction): Sequelize {
  // Every sequelize transaction knows its instance; its typings just do not say so.
  return (tx as unknown as { sequelize: Sequelize }).sequelize;
}

/** The row values an entry is made of, besides the request's (actor, request id, IP). */
function entryValues(change: AuditChange): { id: string; org: string; livemode: boolean; action: string; targetType: string; targetId: string; changes: string } {
  const { scope, action, target } = checked(change);
  return {
    id: newAuditId(),
    org: scope.organizationId,
    livemode: scope.livemode,
    action,
    targetType: target.type,
    targetId: target.id,
    changes: JSON.stringify(withoutSecrets(change.changes ?? {})),
  };
}

function requestValues(): { actorType: string; actorId: string; actorLabel: string; requestId: string | null; ip: string | null } {
  const context = currentContext();
  const actor = context?.actor ?? SYSTEM_ACTOR;
  return { actorType: actor.type, actorId: actor.id, actorLabel: actor.label, requestId: context?.requestId ?? null, ip: context?.ip ?? null };
}

const INSERT_ONE = `INSERT INTO audit_entries (id, organization_id, livemode, actor_type, actor_id, actor_label, action, target_type, target_id, request_id, ip, changes)
     VALUES ($id, CAST($org AS uuid), $livemode, $actorType, $actorId, $actorLabel, $action, $targetType, $targetId, CAST($requestId AS text), CAST($ip AS text), CAST($changes AS jsonb))`;

/** Appends one audit entry in `tx`, the transaction of the change it records. */
export async function recordAudit(tx: Transaction, change: AuditChange): Promise<void> {
  const entry = entryValues(change);
  if (!writing) return;
  return appendEntries(tx, INSERT_ONE, { ...entry, ...requestValues() });
}

/**
 * In a pipelined transaction (kit transaction.ts) the entry goes out with COMMIT, in one statement
 * with the transaction's other entries and its idempotency record: it costs no round trip of its
 * own. Nothing of the change reads audit_entries. In any other transaction it is sent now.
 */
function appendEntries(tx: Transaction, sql: string, bind: Record<string, unknown>): Promise<void> {
  if (sendAtCommit(tx, { sql, bind })) return Promise.resolve();
  return execute(sequelizeOf(tx), sql, bind, tx);
}

/**
 * recordAudit as a statement, to run in the change's transaction together with the change's other
 * writes in one round trip (executeTogether of sql.ts, beside an event's insert): the entry then
 * costs its insert, not a round trip of its own. Null when entries are not written (benchmarks).
 */
export function auditStatement(change: AuditChange): Statement | null {
  const entry = entryValues(change);
  return writing ? { sql: INSERT_ONE, bind: { ...entry, ...requestValues() } } : null;
}

/** Several entries of one request (100 accounts provisioned at once) in one statement. */
export async function recordAudits(tx: Transaction, changes: AuditChange[]): Promise<void> {
  if (changes.length === 0) return;
  if (changes.length === 1) return recordAudit(tx, changes[0]);
  const entries = changes.map(entryValues);
  if (!writing) return;
  await appendEntries(
    tx,
    `INSERT INTO audit_entries (id, organization_id, livemode, actor_type, actor_id, actor_label, action, target_type, target_id, request_id, ip, changes)
     SELECT e.id, e.org, e.livemode, $actorType, $actorId, $actorLabel, e.action, e.target_type, e.target_id, CAST($requestId AS text), CAST($ip AS text), e.changes::jsonb
       FROM unnest(CAST($ids AS text[]), CAST($orgs AS uuid[]), CAST($livemodes AS boolean[]), CAST($actions AS text[]),
                   CAST($targetTypes AS text[]), CAST($targetIds AS text[]), CAST($changes AS text[]))
         AS e(id, org, livemode, action, target_type, target_id, changes)`,
    {
      ...requestValues(),
      ids: entries.map((e) => e.id),
      orgs: entries.map((e) => e.org),
      livemodes: entries.map((e) => e.livemode),
      actions: entries.map((e) => e.action),
      targetTypes: entries.map((e) => e.targetType),
      targetIds: entries.map((e) => e.targetId),
      changes: entries.map((e) => e.changes),
    },
  );
}

/** `{field: [before, after]}` of the fields whose value differs (compared as JSON). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key] ?? null;
    const now = after[key] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(now)) changes[key] = [was, now];
  }
  return changes;
}

/** A created object's fields as changes: `{field: [null, value]}`. */
export function createdFields(fields: Record<string, unknown>): Record<string, [unknown, unknown]> {
  return changedFields({}, fields);
}

/** A removed object's fields as changes: `{field: [value, null]}`. */
export function removedFields(fields: Record<string, unknown>): Record<string, [unknown, unknown]> {
  return changedFields(fields, {});
}
