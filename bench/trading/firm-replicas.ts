/**
 * Issue 16's replicas figure: two accounts-service processes on one database split the same
 * firm-scale book (engine/cluster.ts: leases, accounts hashed over the replicas, every quote fanned
 * out with NOTIFY). The feed alternates its quotes over both replicas; a rate is sustained when
 * every quote was evaluated by both (each for its own accounts), none collapsed, and both were
 * caught up within 250 ms of the window's end. Compared with one replica's capacity (runFirmScale).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createServiceClient } from '@propdesk/kit';
import { createTestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { metric, startService, type Service } from '../support/accounts-service';
import { cpuMeter } from '../support/cpu';
import { feedAt, inDigits, walker } from '../support/quote-feed';
import { ACCOUNTS, POSITIONS, seedFirmBook, WINDOW_S } from './firm-book';
import { SYMBOLS } from './seed';

const RATES = (process.env.BENCH_FIRM_REPLICA_RATES ?? process.env.BENCH_FIRM_RATES ?? '1000,2000,3000,4000,5000,6000,7000,8000,9000,10000,11000,12000,14000').split(',').map(Number);

export async function runFirmReplicas(oneReplicaCapacity?: number): Promise<void> {
  const db = await createTestDatabase('pd_bench_firm_replicas');
  const services: Service[] = [];
  const clients: Array<ReturnType<typeof createServiceClient<tradingv1.TradingServiceClient>>> = [];
  const pg = new Client({ connectionString: db.url });
  try {
    for (let k = 0; k < 2; k++) {
      const s = await startService({ DATABASE_URL: db.url });
      services.push(s);
      clients.push(createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, s.address, 60_000));
    }
    await pg.connect();
    const org = randomUUID();
    await seedFirmBook(pg, org);
    const m = (k: number, name: string) => metric(services[k].metricsPort, `propdesk_trading_${name}`);
    const both = async (name: string) => [await m(0, name), await m(1, name)];

    // Each engine joins on its first trading call: both at once, then the membership settles.
    const t = Date.now();
    const s0 = SYMBOLS[0];
    const first = { symbol: s0.symbol, bid: inDigits(s0.mid, s0.digits), ask: inDigits(s0.mid + s0.spread, s0.digits) };
    await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => c.raw.publishQuote({ quote: first }, (err) => (err ? reject(err) : resolve())))));
    // Every symbol priced through the feed (a unary quote would also load the other replica's accounts for itself).
    const prime = feedAt(clients[0].raw, 0, walker(SYMBOLS));
    for (const s of SYMBOLS) prime.inject({ symbol: s.symbol, bid: inDigits(s.mid, s.digits), ask: inDigits(s.mid + s.spread, s.digits) });
    await prime.stop();
    let held = [0, 0];
    for (let i = 0; i < 600; i++) {
      held = await both('live_positions');
      if (held[0] > 0 && held[1] > 0 && held[0] + held[1] === POSITIONS) break;
      await sleep(100);
    }
    await sleep(1000);
    const rss = services.map((s) => s.rssBytes());
    console.log(
      `two replicas: ${POSITIONS} positions across ${ACCOUNTS} accounts split ${held[0]} / ${held[1]} in ${Date.now() - t} ms; ` +
        `RSS ${rss.map((r) => `${(r / 2 ** 20).toFixed(0)} MB`).join(' / ')}`,
    );

    const trial = async (rate: number) => {
      const collapsed0 = await both('quotes_collapsed_total');
      const evaluated0 = await both('quotes_evaluated_total');
      const cpu0 = services.map((s) => s.cpuSeconds());
      const machine = cpuMeter();
      const next = walker(SYMBOLS);
      const feeds = clients.map((c) => feedAt(c.raw, rate / 2, next));
      await sleep(WINDOW_S * 1000);
      const results = await Promise.all(feeds.map((f) => f.stop()));
      const cores = machine.summary();
      const stopped = Date.now();
      const sent = results.reduce((n, r) => n + r.sent, 0);
      const seconds = Math.max(...results.map((r) => r.seconds));
      // Both evaluate every quote (their own and the other's, fanned out): caught up once both counted them all.
      let caughtUpMs = -1;
      while (Date.now() - stopped < 30_000) {
        const evaluated = await both('quotes_evaluated_total');
        if (evaluated.every((e, k) => e - evaluated0[k] >= sent)) {
          caughtUpMs = Date.now() - stopped;
          break;
        }
        await sleep(20);
      }
      const collapsed = (await both('quotes_collapsed_total')).reduce((n, c, k) => n + c - collapsed0[k], 0);
      const cpu = services.map((s, k) => ((s.cpuSeconds() - cpu0[k]) / Math.max(1, sent)) * 1e6);
      const achieved = sent / seconds;
      const failed = results.find((r) => r.error)?.error;
      const sustained = !failed && collapsed === 0 && achieved >= rate * 0.95 && caughtUpMs >= 0 && caughtUpMs <= 250;
      console.log(
        `  ${rate} quotes/s (half to each) for ${seconds.toFixed(0)} s: sent ${sent} (${achieved.toFixed(0)}/s), collapsed ${collapsed}, ` +
          `both caught up ${caughtUpMs < 0 ? 'not within 30 s' : `${caughtUpMs} ms after the window`}, service CPU ${cpu.map((c) => c.toFixed(0)).join(' + ')} µs/quote (${cores})` +
          (failed ? `, feed failed: ${failed}` : '') +
          (sustained ? '' : '  <- not sustained'),
      );
      return sustained;
    };
    let capacity = 0;
    for (const rate of RATES) {
      if (!(await trial(rate))) break;
      capacity = rate;
    }
    console.log(
      `two replicas: ${capacity} quotes/s without collapse (${POSITIONS} positions)` +
        (oneReplicaCapacity ? `; ${(capacity / oneReplicaCapacity).toFixed(2)}x one replica's ${oneReplicaCapacity} (target >= 1.7x)` : ''),
    );
    console.log(`replica RSS now ${services.map((s) => `${(s.rssBytes() / 2 ** 20).toFixed(0)} MB`).join(' / ')}`);
  } catch (err) {
    for (const s of services) console.log(s.output().slice(-3000));
    throw err;
  } finally {
    await pg.end().catch(() => undefined);
    for (const c of clients) c.close();
    for (const s of services) await s.stop();
    await db.drop();
  }
}
