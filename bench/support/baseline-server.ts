/**
 * The gateway bench's baseline (bench/gateway.ts): what a team would write instead of
 * microservices, one Express process with the same key check (SHA-256 + key lookup) and the same
 * list SQL as the product (its statement, PostgreSQL rendering the page's JSON), two queries per
 * request. Prints its URL on stdout; DATABASE_URL names the product's
 * database.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { Pool } from 'pg';
import { sha256Hex } from '@propdesk/kit';
import { ROOT } from './stack';

interface PageQuery {
  scope: { organizationId: string; livemode: boolean };
  filter: Record<string, never>;
  after: number;
  shown: number;
}

// The product's own list statement (services/accounts/src/data/account-listing.ts), for one page.
const { listAccountsJsonStatement } = require(path.join(ROOT, 'services/accounts/dist/data/account-listing.js')) as {
  listAccountsJsonStatement(pages: PageQuery[]): { name: string; text: string; values: unknown[] };
};

async function startBaseline(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10, options: '-c search_path=accounts,public' });
  const app = express();
  app.get('/v1/accounts', async (req, res) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return void res.status(401).json({ error: { code: 'unauthorized', message: 'unauthorized' } });
    const hash = sha256Hex(header.slice(7));
    const key = await pool.query<{ organization_id: string; livemode: boolean; scopes: string[]; plan_status: string }>(
      `SELECT k.organization_id, k.livemode, k.scopes, o.plan_status FROM auth.api_keys k JOIN auth.organizations o ON o.id = k.organization_id
        WHERE k.token_sha256 = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const row = key.rows[0];
    if (!row) return void res.status(401).json({ error: { code: 'invalid_api_key', message: 'invalid API key' } });
    if (row.livemode && row.plan_status !== 'paid') return void res.status(402).json({ error: { code: 'payment_required', message: 'payment required' } });
    if (!row.scopes.includes('accounts:read')) return void res.status(403).json({ error: { code: 'missing_scope', message: 'accounts:read' } });
    const limit = Math.min(Number(req.query.limit ?? 50) || 50, 200);
    const statement = listAccountsJsonStatement([{ scope: { organizationId: row.organization_id, livemode: row.livemode }, filter: {}, after: 0, shown: limit }]);
    const result = await pool.query<{ found: number; last_number: string | null; json: string }>(statement);
    const page = result.rows[0];
    const next = page.found > limit && page.last_number !== null ? JSON.stringify(Buffer.from(page.last_number).toString('base64url')) : 'null';
    res.type('application/json').send(`{"data":${page.json},"next_cursor":${next}}`);
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
