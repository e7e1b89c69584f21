/**
 * Where a write's time goes, in statements: POST /v1/traders without and with an Idempotency-Key,
 * one request at a time, with PostgreSQL logging every statement of the stack's database
 * (log_statement = all for that database only). Prints each statement per request as the server
 * saw it, in order, and the request's latency. Needs to read the server's log file
 * (PG_LOG_FILE, default /var/log/postgresql/postgresql-15-main.log).
 *
 *   tsc -b && node bench/dist/support/write-statements.js [checkout root to run, default this one]
 */
import fs from 'node:fs';
import { Client } from 'pg';
import { createTestDatabase } from '@propdesk/kit/testing';
import { admin, ROOT, startProcessStack } from './stack';

const LOG_FILE = process.env.PG_LOG_FILE ?? '/var/log/postgresql/postgresql-15-main.log';
const REQUESTS = 5;

async function mark(url: string, label: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  await c.query(`SELECT 'statements-mark-${label}'`);
  await c.end();
}

/** The statements logged for the database between two marks, one per entry (continuation lines joined). */
function statementsBetween(log: string, database: string, from: string, to: string): string[] {
  const entries: string[] = [];
  let current: string | undefined;
  for (const line of log.split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) {
      if (current !== undefined) entries.push(current);
      current = line.includes(`@${database} LOG:`) ? line.replace(/^.*? LOG:\s+/, '') : undefined;
    } else if (current !== undefined) current += ` ${line.trim()}`;
  }
  if (current !== undefined) entries.push(current);
  const start = entries.findIndex((e) => e.includes(`statements-mark-${from}`));
  const end = entries.findIndex((e) => e.includes(`statements-mark-${to}`));
  return entries.slice(start + 1, end).filter((e) => !e.includes('statements-mark-'));
}

async function main(): Promise<void> {
  const root = process.argv[2] ?? ROOT;
  const db = await createTestDatabase('pd_statements');
  const c = new Client({ connectionString: db.url });
  await c.connect();
  await c.query(`ALTER DATABASE "${db.name}" SET log_statement = 'all'`);
  await c.end();
  const stack = await startProcessStack({ DATABASE_URL: db.url, DATABASE_POOL_MAX: '4' }, root);
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Statements', '--credits', '10'], root);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'writes', '--scopes', 'accounts:write'], root);
    const post = async (keyed: boolean, n: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${String(key.token)}`, 'content-type': 'application/json' };
      if (keyed) headers['idempotency-key'] = `statements-${n}`;
      const started = process.hrtime.bigint();
      const res = await fetch(`${stack.url}/v1/traders`, { method: 'POST', headers, body: JSON.stringify({ name: 'T', email: `t-${n}@example.com` }) });
      await res.text();
      if (res.status !== 201) throw new Error(`answered ${res.status}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < 5; i += 1) {
      await post(false, `warm-plain-${i}`);
      await post(true, `warm-keyed-${i}`);
    }
    const latency: Record<string, number[]> = { plain: [], keyed: [], replay: [] };
    await mark(db.url, 'plain');
    for (let i = 0; i < REQUESTS; i += 1) latency.plain.push(await post(false, `plain-${i}`));
    await mark(db.url, 'keyed');
    for (let i = 0; i < REQUESTS; i += 1) latency.keyed.push(await post(true, `keyed-${i}`));
    await mark(db.url, 'replay');
    for (let i = 0; i < REQUESTS; i += 1) latency.replay.push(await post(true, `keyed-${i}`));
    await mark(db.url, 'end');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const log = fs.readFileSync(LOG_FILE, 'utf8');
    const sides: Array<[string, string, string]> = [
      ['plain', 'plain', 'keyed'],
      ['keyed (a fresh key)', 'keyed', 'replay'],
      ['replay (the same key again)', 'replay', 'end'],
    ];
    for (const [title, from, to] of sides) {
      const statements = statementsBetween(log, db.name, from, to);
      const ms = [...latency[from]].sort((a, b) => a - b);
      console.log(`\n${title}: ${statements.length / REQUESTS} statements per request, median ${ms[Math.floor(ms.length / 2)].toFixed(1)} ms (one client, ${REQUESTS} requests)`);
      for (const s of statements.slice(0, statements.length / REQUESTS)) console.log(`  ${s.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  } finally {
    await stack.stop();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
