import { QueryTypes } from '@propdesk/kit';
import { startHarness, type Harness } from '../../test/harness';
import { INSTRUMENTS, findInstrument } from '../domain/instruments';
import { RandomWalkMarket } from './simulator';
import { startSimulatedFeed } from './simulator-main';

describe('the random-walk market', () => {
  it('quotes every instrument with bid <= ask at its precision, near its reference price', () => {
    const market = new RandomWalkMarket();
    let quotes = market.step();
    for (let i = 0; i < 500; i++) quotes = market.step();
    expect(quotes.map((q) => q.symbol)).toEqual(INSTRUMENTS.map((i) => i.symbol));
    for (const q of quotes) {
      const instrument = findInstrument(q.symbol);
      expect(instrument).toBeDefined();
      expect(q.bid).toBeGreaterThan(0);
      expect(q.bid).toBeLessThanOrEqual(q.ask);
      expect(Math.abs(q.bid * 10 ** (instrument?.digits ?? 0) - Math.round(q.bid * 10 ** (instrument?.digits ?? 0)))).toBeLessThan(1e-6);
      expect(q.bid / (instrument?.referencePrice ?? 1)).toBeGreaterThan(0.8);
      expect(q.bid / (instrument?.referencePrice ?? 1)).toBeLessThan(1.25);
    }
  });
});

describe('the simulated feed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('streams quotes for every instrument into the accounts service', async () => {
    const feed = startSimulatedFeed({ ACCOUNTS_GRPC_ADDRESS: h.service.address, SIMULATED_QUOTE_INTERVAL_MS: '50', LOG_LEVEL: 'silent' });
    try {
      const deadline = Date.now() + 10_000;
      let symbols = 0;
      while (Date.now() < deadline && symbols < INSTRUMENTS.length) {
        await new Promise((r) => setTimeout(r, 200));
        const [row] = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM quotes_latest', { type: QueryTypes.SELECT });
        symbols = Number(row.n);
      }
      expect(symbols).toBe(INSTRUMENTS.length);
    } finally {
      await feed.stop();
    }
  });

  it('refuses to start without a usable interval', () => {
    expect(() => startSimulatedFeed({ SIMULATED_QUOTE_INTERVAL_MS: '1', LOG_LEVEL: 'silent' })).toThrow(/SIMULATED_QUOTE_INTERVAL_MS/);
  });
});
