/**
 * The gateway bench's baseline (bench/gateway.ts): what a team would write instead of
 * microservices, one Express process with the same key check (SHA-256 + key lookup) and the same
 * list SQL, two queries per request. Prints its URL on stdout; DATABASE_URL names the product's
 * database.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'pg';
import { sha256Hex } from '@propdesk/kit';

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

async function startBaseline(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
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

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
startBaseline(databaseUrl).then(
  (baseline) => {
    process.stdout.write(`${baseline.url}\n`);
    process.once('SIGTERM', () => void baseline.stop().then(() => process.exit(0)));
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
