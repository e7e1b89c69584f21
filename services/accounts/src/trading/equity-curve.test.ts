import { Mode, QueryTypes } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';
import { rebuildEquityHours } from './data/equity-minutes';
import { tradingHelpers } from '../test/trading-helpers';

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
  // Written straight into the minutes, so their hour rollups are rebuilt as a repair would.
  await rebuildEquityHours(h.sql, Number(number));
}

describe('the equity curve is bounded for any range', () => {
  let number = '';

  beforeAll(async () => {
    [number] = await t.newAccounts(org, 1);
    await seedYear(number);
  });

  it('downsamples a year of minutes to the requested budget, keeping the lowest point of the year', async () => {
    const { points } = await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, maxPoints: 500 });
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
    expect((await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number })).points.length).toBeLessThanOrEqual(5000);
    expect((await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, maxPoints: 1_000_000 })).points.length).toBeLessThanOrEqual(5000);
    expect((await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, maxPoints: 1 })).points.length).toBeLessThanOrEqual(4);
  });

  it('downsamples a range of days from the minutes themselves, the dip at its minute', async () => {
    const dipAt = new Date(YEAR_START.getTime() + DIP_MINUTE * 60_000);
    const from = new Date(dipAt.getTime() - 2 * 86_400_000);
    const to = new Date(dipAt.getTime() + 2 * 86_400_000);
    const { points } = await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, from, to, maxPoints: 1000 });
    expect(points.length).toBeLessThanOrEqual(1000);
    expect(points.every((p) => p.time! >= from && p.time! <= to)).toBe(true);
    expect(points.reduce((min, p) => (p.equity < min.equity ? p : min))).toMatchObject({ equity: 90_000, time: dipAt });
  });

  it('answers the raw closes of a range that fits the budget', async () => {
    const from = new Date(YEAR_START.getTime() + 1000 * 60_000);
    const to = new Date(from.getTime() + 99 * 60_000);
    const { points } = await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, from, to, maxPoints: 500 });
    expect(points).toHaveLength(100);
    expect(points[0]!.time).toEqual(from);
  });
});

describe('hour rollups', () => {
  it('are rolled from the minutes when a long curve is read, completed hours only, and the latest minutes still count', async () => {
    const [number] = await t.newAccounts(org, 1);
    // Ten days of minutes up to now, written straight into the table: nothing rolled yet.
    await h.sql.query(
      `INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
       SELECT :number, date_trunc('minute', now()) - make_interval(mins => m), 100000, 100010,
              CASE WHEN m = 5000 THEN 95000 WHEN m = 1 THEN 94000 ELSE 99990 END, 100000, 100000
         FROM generate_series(1, 14400) AS m`,
      { replacements: { number }, type: QueryTypes.RAW },
    );
    const hours = async () =>
      (await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM equity_hours WHERE account_number = :number', { replacements: { number }, type: QueryTypes.SELECT }))[0]?.n;
    expect(await hours()).toBe('0');
    const { points } = await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, maxPoints: 100 });
    expect(points.length).toBeLessThanOrEqual(100);
    const rolled = Number(await hours());
    expect(rolled).toBeGreaterThanOrEqual(238);
    expect(rolled).toBeLessThanOrEqual(241);
    const lows = points.map((p) => p.equity).sort((a, b) => a - b);
    // The older dip comes from a rolled hour, the newest minute's from the minutes not rolled yet.
    expect(lows.slice(0, 2)).toEqual([94_000, 95_000]);
    await h.trading.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number, maxPoints: 100 });
    expect(Number(await hours())).toBe(rolled);
  });
});
