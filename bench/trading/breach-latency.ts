/**
 * Breaching quote -> committed breach with its event, timed from the bench: breaching EURUSD
 * quotes slipped one at a time into a feed of the nine other symbols at `loadRate` quotes/s, each
 * breach timed when the bench has read its account.breached event. The bench LISTENs on the events
 * channel (the service NOTIFYs on commit) and reads the event when told, or every 50 ms at the
 * latest; `poll`: every 2 ms instead (a poller of 500 queries/s that competes with the service for
 * the machine's cores). Shared by the firm-scale bench and the sequence bench.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import type { tradingv1 } from '@propdesk/proto';
import { feedAt, inDigits, walker } from '../support/quote-feed';
import { ROOT } from '../support/stack';
import { BREACH_BASE, SYMBOLS } from './seed';

/** The channel the accounts service NOTIFYs when it commits events (data/outbox.ts). */
const { EVENTS_CHANNEL } = require(path.join(ROOT, 'services/accounts/dist/data/outbox.js')) as { EVENTS_CHANNEL: string };

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

export interface BreachRun {
  /** Milliseconds from each breaching quote to its event read, in the order of the run. */
  latencies: number[];
  /** Breaches not seen within 10 s. */
  missed: number;
  /** account.breached events committed for the candidates breached. */
  committed: number;
  feedError?: string;
}

/**
 * Breaches the candidates `from` down to `to` (1-based indexes into `accounts`, seeded by
 * seedBreachAccounts: candidate k breaches at a bid 0.0051 under BREACH_BASE + 0.01 * k), one at a
 * time, 100 ms apart, each meeting the load rather than the previous breach.
 */
export async function measureBreaches(options: {
  raw: tradingv1.TradingServiceClient;
  pg: Client;
  databaseUrl: string;
  org: string;
  accounts: number[];
  from: number;
  to: number;
  loadRate: number;
  poll?: boolean;
}): Promise<BreachRun> {
  const { pg, org, accounts, from, to } = options;
  const latencies: number[] = [];
  let missed = 0;
  const feed = feedAt(options.raw, options.loadRate, walker(SYMBOLS, 'EURUSD'));
  await sleep(2000);
  const breached = (account: number) =>
    pg.query<{ n: string }>(
      `SELECT count(*) AS n FROM accounts.events WHERE organization_id = $1 AND type = 'account.breached' AND (data->>'account')::bigint = $2`,
      [org, account],
    );
  // The read below, once before the first breach: the bench's own first read of the events is not the service's latency.
  await breached(0);
  // Told of every committed event (the service NOTIFYs its events channel on commit).
  const listener = new Client({ connectionString: options.databaseUrl });
  await listener.connect();
  let wake = () => {};
  listener.on('notification', () => wake());
  try {
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    for (let k = from; k >= to; k--) {
      const bid = Number((BREACH_BASE + 0.01 * k - 0.0051).toFixed(5));
      const t0 = process.hrtime.bigint();
      feed.inject({ symbol: 'EURUSD', bid, ask: inDigits(bid + 0.0001, 5) });
      for (;;) {
        // Armed before the read: a notification that arrives during it wakes the next wait at once.
        const told = new Promise<void>((resolve) => (wake = resolve));
        const { rows } = await breached(accounts[k - 1]);
        if (rows[0].n !== '0') {
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          break;
        }
        if (Number(process.hrtime.bigint() - t0) > 10e9) {
          missed += 1;
          break;
        }
        await (options.poll ? sleep(2) : Promise.race([told, sleep(50)]));
      }
      // Spaced out, so each breach meets the load rather than the previous breach.
      await sleep(100);
    }
  } finally {
    await listener.end();
  }
  const stopped = await feed.stop();
  const { rows } = await pg.query<{ n: string }>(
    `SELECT count(*) AS n FROM accounts.events WHERE organization_id = $1 AND type = 'account.breached' AND (data->>'account')::bigint = ANY($2::bigint[])`,
    [org, accounts.slice(to - 1, from)],
  );
  return { latencies, missed, committed: Number(rows[0].n), feedError: stopped.error };
}
