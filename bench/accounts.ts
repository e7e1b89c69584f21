/**
 * Issue 3's benchmark: GET /v1/accounts latency on the first page and on a page past the
 * millionth account of an organization holding 1,000,000 accounts (keyset paging: the ratio must
 * stay under 1.2), and claims per second under 50 concurrent claimers.
 */
import { Client } from 'pg';
import { admin, startProcessStack } from './support/stack';
import { fmt, load } from './support/load';
import { timeOnce } from './support/timing';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000_000);

function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length * 0.5)], p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] };
}

/** Both pages requested alternately, so that a slow moment of the machine hits both alike. */
async function timeInterleaved(urls: [string, string], headers: Record<string, string>, n: number): Promise<Array<{ p50: number; p99: number }>> {
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < 50; i += 1) for (const url of urls) await timeOnce(url, headers);
  for (let i = 0; i < n; i += 1) {
    samples[0].push(await timeOnce(urls[0], headers));
    samples[1].push(await timeOnce(urls[1], headers));
  }
  return samples.map(percentiles);
}

export async function run(): Promise<void> {
  const stack = await startProcessStack({
    RATE_LIMIT_READ_PER_MIN: '100000000',
    RATE_LIMIT_WRITE_PER_MIN: '100000000',
    RATE_LIMIT_IP_PER_MIN: '100000000',
  });
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '100']);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'accounts:read,accounts:write']);
    await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
    // The other 999,900 rows are bulk-copied from one provisioned account (same terms and sealed
    // password), which is how a million accounts fit in a benchmark's time.
    const pg = new Client({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    const started = Date.now();
    await pg.query(
      `INSERT INTO accounts.accounts (organization_id, status, program, terms, currency, initial_balance, balance, equity, peak_equity, executor_password_sealed)
       SELECT a.organization_id, a.status, a.program, a.terms, a.currency, a.initial_balance, a.balance, a.equity, a.peak_equity, a.executor_password_sealed
         FROM accounts.accounts a, generate_series(1, $1::int) WHERE a.number = (SELECT min(number) FROM accounts.accounts)`,
      [ACCOUNTS - 100],
    );
    await pg.query('VACUUM ANALYZE accounts.accounts');
    await pg.end();
    console.log(`${ACCOUNTS} accounts in one organization (bulk insert ${((Date.now() - started) / 1000).toFixed(1)} s)`);

    const headers = { authorization: `Bearer ${String(key.token)}` };
    // Walk to the end with the largest pages; keep the cursor of a page past the millionth account.
    let cursor: string | null = null;
    let seen = 0;
    let deepCursor: string | null = null;
    const walkStart = Date.now();
    do {
      const res: Response = await fetch(`${stack.url}/v1/accounts?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
      const page = (await res.json()) as { data: unknown[]; next_cursor: string | null };
      seen += page.data.length;
      cursor = page.next_cursor;
      if (seen >= ACCOUNTS - 200 && cursor && !deepCursor) deepCursor = cursor;
    } while (cursor);
    console.log(`walked ${seen} accounts in ${((Date.now() - walkStart) / 1000).toFixed(1)} s with limit=200`);
    if (!deepCursor) throw new Error('no deep cursor');
    const [first, deep] = await timeInterleaved(
      [`${stack.url}/v1/accounts?limit=50`, `${stack.url}/v1/accounts?limit=50&cursor=${encodeURIComponent(deepCursor)}`],
      headers,
      500,
    );
    console.log(`  first page         p50 ${first.p50.toFixed(2)} ms, p99 ${first.p99.toFixed(2)} ms`);
    console.log(`  page past ${seen - 200}   p50 ${deep.p50.toFixed(2)} ms, p99 ${deep.p99.toFixed(2)} ms`);
    console.log(`  deep/first p50 ratio ${(deep.p50 / first.p50).toFixed(2)} (target < 1.2)`);

    // Claims: a fresh org with enough unassigned accounts for the run.
    const org2 = await admin(stack.env, ['org:create', '--name', 'Claims', '--credits', '0']);
    const key2 = await admin(stack.env, ['key:create', '--org', String(org2.id), '--name', 'claims', '--scopes', 'accounts:write']);
    const pg2 = new Client({ connectionString: stack.env.DATABASE_URL });
    await pg2.connect();
    await pg2.query(
      `INSERT INTO accounts.accounts (organization_id, status, program, terms, currency, initial_balance, balance, equity, peak_equity, executor_password_sealed)
       SELECT $1::uuid, 'active', a.program, a.terms, a.currency, a.initial_balance, a.balance, a.equity, a.peak_equity, a.executor_password_sealed
         FROM accounts.accounts a, generate_series(1, 200000) WHERE a.number = (SELECT min(number) FROM accounts.accounts)`,
      [String(org2.id)],
    );
    await pg2.query('ANALYZE accounts.accounts');
    await pg2.end();
    const claims = await load({
      url: `${stack.url}/v1/accounts/claim`,
      method: 'POST',
      headers: { authorization: `Bearer ${String(key2.token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench Buyer', email: 'buyer@bench.test' }),
      connections: 50,
      durationSec: 10,
    });
    console.log(`  claims, 50 concurrent claimers: ${fmt(claims)}`);
  } finally {
    await stack.stop();
  }
}
