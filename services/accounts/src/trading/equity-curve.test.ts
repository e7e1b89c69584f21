import { QueryTypes } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';
import { tradingHelpers } from './test-helpers';

let h: Harness;
let t: ReturnType<typeof tradingHelpers>;
let org: string;

beforeAll(async () => {
  h = await startHarness();
  t = tradingHelpers(h, h.sql);
  org = h.newOrg(100);
});

afterAll(async () => {
  await h.close();
});

const YEAR_START = new Date('2025-01-01T00:00:00Z');
const MINUTES_IN_YEAR = 365 * 24 * 60;
const DIP_MINUTE = 200_000;

/** A year of per-minute equity, a gentle wave around 100,000 with one deep dip at one minute. */
async function seedYear(number: string): Promise<void> {
  await h.sql.query(
    `INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT :number, :start::timestamptz + make_interval(mins => m),
            e, e + 5, CASE WHEN m = :dip THEN 90000 ELSE e - 5 END, e, 100000
       FROM generate_series(0, :minutes - 1) AS m, LATERAL (SELECT 100000 + round((sin(m / 5000.0) * 2000)::numeric, 2) AS e) x`,
    { replacements: { number, start: YEAR_START, minutes: MINUTES_IN_YEAR, dip: DIP_MINUTE }, type: QueryTypes.RAW },
  );
}

describe('the equity curve is bounded for any range', () => {
  let number = '';

  beforeAll(async () => {
    [number] = await t.newAccounts(org, 1);
    await seedYear(number);
  });

  it('downsamples a year of minutes to the requested budget, keeping the lowest point of the year', async () => {
    const { points } = await h.trading.getEquityCurve({ organizationId: org, number, maxPoints: 500 });
    expect(points.length).toBeLessThanOrEqual(500);
    expect(points.length).toBeGreaterThan(400);
    const times = points.map((p) => p.time!.getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const lowest = points.reduce((min, p) => (p.equity < min.equity ? p : min));
    expect(lowest).toMatchObject({ equity: 90_000, time: new Date(YEAR_START.getTime() + DIP_MINUTE * 60_000) });
    expect(Math.max(...points.map((p) => p.equity))).toBeCloseTo(102_005, 0);
    // The curve still ends with the latest close.
    expect(points[points.length - 1]!.time).toEqual(new Date(YEAR_START.getTime() + (MINUTES_IN_YEAR - 1) * 60_000));
  });

  it('without a budget answers at most 5000 points, and clamps a tiny or huge one', async () => {
    expect((await h.trading.getEquityCurve({ organizationId: org, number })).points.length).toBeLessThanOrEqual(5000);
    expect((await h.trading.getEquityCurve({ organizationId: org, number, maxPoints: 1_000_000 })).points.length).toBeLessThanOrEqual(5000);
    expect((await h.trading.getEquityCurve({ organizationId: org, number, maxPoints: 1 })).points.length).toBeLessThanOrEqual(4);
  });

  it('answers the raw closes of a range that fits the budget', async () => {
    const from = new Date(YEAR_START.getTime() + 1000 * 60_000);
    const to = new Date(from.getTime() + 99 * 60_000);
    const { points } = await h.trading.getEquityCurve({ organizationId: org, number, from, to, maxPoints: 500 });
    expect(points).toHaveLength(100);
    expect(points[0]!.time).toEqual(from);
  });
});
