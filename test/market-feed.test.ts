import { Client } from 'pg';
import { startSimulatedFeed } from '../services/market-feed/src/main';
import { startStack, type Stack } from './support/stack';

/** The simulated feed is its own process in `npm start`; here it runs in-process against a whole stack. */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack.stop();
});

async function quotedSymbols(): Promise<number> {
  const pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ n: string }>('SELECT count(*) AS n FROM accounts.quotes_latest');
    return Number(rows[0].n);
  } finally {
    await pg.end();
  }
}

it('streams quotes for every instrument TradingService lists', async () => {
  const { instruments } = await stack.admin.trading.call.listInstruments({});
  const feed = startSimulatedFeed({ ACCOUNTS_GRPC_ADDRESS: stack.services.accounts.address, SIMULATED_QUOTE_INTERVAL_MS: '50', LOG_LEVEL: 'silent' });
  try {
    const deadline = Date.now() + 10_000;
    let symbols = 0;
    while (Date.now() < deadline && symbols < instruments.length) {
      await new Promise((r) => setTimeout(r, 200));
      symbols = await quotedSymbols();
    }
    expect(symbols).toBe(instruments.length);
  } finally {
    await feed.stop();
  }
});

it('refuses to start without a usable interval', () => {
  expect(() => startSimulatedFeed({ SIMULATED_QUOTE_INTERVAL_MS: '1', LOG_LEVEL: 'silent' })).toThrow(/SIMULATED_QUOTE_INTERVAL_MS/);
});
