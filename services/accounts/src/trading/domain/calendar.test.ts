import { calendarAt, calendarOf, tradingDayOf, utcCalendar, wallMinuteOf } from './calendar';

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);

describe('a trading day in a zone with daylight saving (SPEC 15 trading_day)', () => {
  // A forex day: it rolls over at 17:00 New York, 22:00 UTC in winter (EST) and 21:00 UTC in summer (EDT).
  const ny = calendarAt('America/New_York', 17 * 60);

  // A day is named by the date it starts on (as the service's UTC day always was).
  it('rolls over at 17:00 New York time on both sides of the March change (EST, then EDT)', () => {
    // Friday 2026-03-06, EST: its day starts at 22:00 UTC.
    expect(ny.dayOf(at('2026-03-06T21:59:59Z'))).toBe('2026-03-05');
    expect(ny.dayOf(at('2026-03-06T22:00:00Z'))).toBe('2026-03-06');
    expect(ny.startOfDay('2026-03-06').toISOString()).toBe('2026-03-06T22:00:00.000Z');
    // Clocks go forward on Sunday 2026-03-08 at 02:00: Saturday's day started at 22:00 UTC (EST)...
    expect(ny.startOfDay('2026-03-07').toISOString()).toBe('2026-03-07T22:00:00.000Z');
    // ...and lasts 23 hours: Sunday's starts at 21:00 UTC (EDT).
    expect(ny.startOfDay('2026-03-08').toISOString()).toBe('2026-03-08T21:00:00.000Z');
    expect(ny.dayOf(at('2026-03-08T20:59:59Z'))).toBe('2026-03-07');
    expect(ny.dayOf(at('2026-03-08T21:00:00Z'))).toBe('2026-03-08');
    expect(ny.nextStart(at('2026-03-08T12:00:00Z')).toISOString()).toBe('2026-03-08T21:00:00.000Z');
  });

  it('rolls over at 17:00 New York time on both sides of the November change (EDT, then EST)', () => {
    // Clocks go back on Sunday 2026-11-01 at 02:00: Saturday's day starts at 21:00 UTC (EDT) and lasts 25 hours.
    expect(ny.startOfDay('2026-10-31').toISOString()).toBe('2026-10-31T21:00:00.000Z');
    expect(ny.startOfDay('2026-11-01').toISOString()).toBe('2026-11-01T22:00:00.000Z');
    expect(ny.dayOf(at('2026-10-31T20:59:59Z'))).toBe('2026-10-30');
    expect(ny.dayOf(at('2026-10-31T21:00:00Z'))).toBe('2026-10-31');
    expect(ny.dayOf(at('2026-11-01T21:59:59Z'))).toBe('2026-10-31');
    expect(ny.dayOf(at('2026-11-01T22:00:00Z'))).toBe('2026-11-01');
  });

  it('starts a day whose start falls in the skipped hour when the hour ends, and one in the repeated hour once', () => {
    const early = calendarAt('America/New_York', 2 * 60 + 30);
    // 02:30 does not exist on 2026-03-08 (02:00 EST -> 03:00 EDT, at 07:00 UTC): the day starts at the jump.
    expect(early.startOfDay('2026-03-08').toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(early.dayOf(at('2026-03-08T06:59:59Z'))).toBe('2026-03-07');
    expect(early.dayOf(at('2026-03-08T07:00:00Z'))).toBe('2026-03-08');
    const repeated = calendarAt('America/New_York', 90);
    // 01:30 happens twice on 2026-11-01: the day starts at the first (05:30 UTC, EDT) and does not start again at 06:30 UTC.
    expect(repeated.startOfDay('2026-11-01').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    for (const t of ['2026-11-01T05:30:00Z', '2026-11-01T06:00:00Z', '2026-11-01T06:29:59Z', '2026-11-01T06:30:00Z', '2026-11-01T12:00:00Z']) {
      expect(repeated.dayOf(at(t))).toBe('2026-11-01');
    }
    expect(repeated.dayOf(at('2026-11-01T05:29:59Z'))).toBe('2026-10-31');
  });

  it('follows Europe/London: midnight is 00:00 UTC in winter, 23:00 UTC in summer', () => {
    const london = calendarAt('Europe/London', 0);
    // Clocks go forward on 2026-03-29 at 01:00 UTC.
    expect(london.startOfDay('2026-03-29').toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(london.startOfDay('2026-03-30').toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(london.dayOf(at('2026-03-29T22:59:59Z'))).toBe('2026-03-29');
    expect(london.dayOf(at('2026-03-29T23:00:00Z'))).toBe('2026-03-30');
    // And back on 2026-10-25 at 01:00 UTC.
    expect(london.startOfDay('2026-10-25').toISOString()).toBe('2026-10-24T23:00:00.000Z');
    expect(london.startOfDay('2026-10-26').toISOString()).toBe('2026-10-26T00:00:00.000Z');
    expect(london.dayOf(at('2026-10-25T23:59:59Z'))).toBe('2026-10-25');
    expect(london.dayOf(at('2026-10-26T00:00:00Z'))).toBe('2026-10-26');
  });

  it('lists the days of a span with their starts, for the database to bucket deals by', () => {
    const days = ny.daysBetween(at('2026-03-07T12:00:00Z'), at('2026-03-09T12:00:00Z'));
    expect(days.map((d) => [d.day, d.start.toISOString()])).toEqual([
      ['2026-03-06', '2026-03-06T22:00:00.000Z'],
      ['2026-03-07', '2026-03-07T22:00:00.000Z'],
      ['2026-03-08', '2026-03-08T21:00:00.000Z'],
    ]);
  });

  it('answers the same day, with or without the remembered one, whatever the order of the questions', () => {
    const fresh = () => calendarAt('America/New_York', 17 * 60);
    const times = Array.from({ length: 200 }, (_, i) => ms('2026-10-30T00:00:00Z') + i * 1_234_567);
    const answers = times.map((t) => fresh().dayOf(new Date(t)));
    const shuffled = [...times].reverse().map((t) => [t, ny.dayOf(new Date(t))] as const);
    for (const [t, day] of shuffled) expect(day).toBe(answers[times.indexOf(t)]);
  });
});

describe("the service's trading day (UTC at a whole hour) and a phase's", () => {
  it('is what it was: the day rolls over at the configured hour UTC', () => {
    expect(tradingDayOf(at('2026-03-10T21:59:59Z'), 22)).toBe('2026-03-09');
    expect(tradingDayOf(at('2026-03-10T22:00:00Z'), 22)).toBe('2026-03-10');
    expect(utcCalendar(0).nextStart(at('2026-03-10T00:00:00Z')).toISOString()).toBe('2026-03-11T00:00:00.000Z');
  });

  it("takes a phase's trading_day when it has one, the service's otherwise", () => {
    expect(calendarOf({ tradingDay: null }, 22)).toBe(utcCalendar(22));
    expect(calendarOf({ tradingDay: { timezone: 'Europe/London', start: '00:00' } }, 22).key).toBe('Europe/London@0');
  });

  it("reads a zone's wall minute of the day", () => {
    expect(wallMinuteOf(at('2026-07-01T13:30:00Z'), 'America/New_York')).toBe(9 * 60 + 30);
    expect(wallMinuteOf(at('2026-01-01T14:30:59Z'), 'America/New_York')).toBe(9 * 60 + 30);
    expect(wallMinuteOf(at('2026-01-01T00:00:00Z'), 'UTC')).toBe(0);
  });
});
