/**
 * Issue 2's benchmark: GET /v1/accounts?limit=50 three ways, in one run.
 *  1. product   — gateway -> gRPC -> accounts, auth in its own process (scripts/stack.mjs)
 *  2. baseline  — in-process: Express + the same key check (SHA-256 + key lookup) + the same SQL
 *  3. ceiling   — bare node:http answering a fixed body of the same size
 * Targets: product >= 0.9x baseline throughput, p99 <= 1.3x baseline p99.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'pg';
import { sha256Hex } from '@propdesk/kit';
import { admin, startProcessStack } from './support/stack';
import { fmt, load, type LoadResult } from './support/load';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface AccountRow {
  number: string;
  status: string;
  trader_id: string | null;
  program: string;
  currency: string;
  initial_balance: string;
  balance: string;
  equity: string;
  peak_equity: string;
  created_at: Date;
}

/** What a team would write instead of microservices: one Express process, two queries. */
export async function startBaseline(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const app = express();
  app.get('/v1/accounts', async (req, res) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return void res.status(401).json({ error: { code: 'unauthorized', message: 'unauthorized' } });
    const hash = sha256Hex(header.slice(7));
    const key = await pool.query<{ organization_id: string; scopes: string[]; plan_status: string }>(
      `SELECT k.organization_id, k.scopes, o.plan_status FROM auth.api_keys k JOIN auth.organizations o ON o.id = k.organization_id
        WHERE k.token_sha256 = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const row = key.rows[0];
    if (!row) return void res.status(401).json({ error: { code: 'invalid_api_key', message: 'invalid API key' } });
    if (row.plan_status !== 'paid') return void res.status(402).json({ error: { code: 'payment_required', message: 'payment required' } });
    if (!row.scopes.includes('accounts:read')) return void res.status(403).json({ error: { code: 'missing_scope', message: 'accounts:read' } });
    const limit = Math.min(Number(req.query.limit ?? 50) || 50, 200);
    const accounts = await pool.query<AccountRow>(
      `SELECT number, status, trader_id, program, currency, initial_balance, balance, equity, peak_equity, created_at
         FROM accounts.accounts WHERE organization_id = $1 ORDER BY number LIMIT $2`,
      [row.organization_id, limit + 1],
    );
    const page = accounts.rows.slice(0, limit);
    res.json({
      data: page.map((a) => ({
        number: Number(a.number),
        status: a.status,
        trader_id: a.trader_id,
        program: a.program,
        currency: a.currency,
        initial_balance: Number(a.initial_balance),
        balance: Number(a.balance),
        equity: Number(a.equity),
        peak_equity: Number(a.peak_equity),
        created_at: a.created_at.toISOString(),
      })),
      next_cursor: accounts.rows.length > limit ? Buffer.from(String(page[page.length - 1].number)).toString('base64url') : null,
    });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      await new Promise((r) => server.close(r));
      await pool.end();
    },
  };
}

async function startCeiling(body: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

export async function run(): Promise<void> {
  // Limits far above the load so that the comparison measures the request path, not 429s.
  const stack = await startProcessStack({ RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000', ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}) });
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '1000']);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'accounts:read']);
    for (let i = 0; i < 3; i += 1) await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
    const token = String(key.token);
    const path = '/v1/accounts?limit=50';
    const sample = await fetch(stack.url + path, { headers: { authorization: `Bearer ${token}` } });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`product answered ${sample.status}: ${body}`);

    const baseline = await startBaseline(stack.env.DATABASE_URL);
    const ceiling = await startCeiling(body);
    const headers = { authorization: `Bearer ${token}` };
    try {
      const check = await fetch(baseline.url + path, { headers });
      if (check.status !== 200) throw new Error(`baseline answered ${check.status}`);
      // Warm-up, then the measured runs.
      await load({ url: stack.url + path, headers, connections: CONNECTIONS, durationSec: 3 });
      await load({ url: baseline.url + path, headers, connections: CONNECTIONS, durationSec: 3 });
      const results: Record<string, LoadResult> = {};
      results.product = await load({ url: stack.url + path, headers, connections: CONNECTIONS, durationSec: DURATION });
      results.baseline = await load({ url: baseline.url + path, headers, connections: CONNECTIONS, durationSec: DURATION });
      results.ceiling = await load({ url: ceiling.url + path, headers, connections: CONNECTIONS, durationSec: DURATION });
      console.log(`GET ${path}, ${CONNECTIONS} connections, ${DURATION} s each, response ${body.length} bytes`);
      console.log(`load generator pinned to its own core with taskset where the machine has more than one`);
      for (const [name, r] of Object.entries(results)) console.log(`  ${name.padEnd(9)} ${fmt(r)}`);
      const ratio = results.product.requestsPerSec / results.baseline.requestsPerSec;
      const p99 = results.product.p99 / Math.max(results.baseline.p99, 1);
      console.log(`  product/baseline throughput ${ratio.toFixed(2)}x (target >= 0.90), p99 ${p99.toFixed(2)}x (target <= 1.30)`);
      console.log(`  product/ceiling throughput ${(results.product.requestsPerSec / results.ceiling.requestsPerSec).toFixed(2)}x`);
    } finally {
      await baseline.stop();
      await ceiling.stop();
    }
  } finally {
    await stack.stop();
  }
}
