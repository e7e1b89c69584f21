import { minutesOfDay, type TradingDay } from '@propdesk/kit';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MINUTE_MS = 60_000;

/** The trading day (YYYY-MM-DD) an instant belongs to, with the day rolling over at `rolloverHourUtc`. */
export function tradingDayOf(time: Date, rolloverHourUtc: number): string {
  return utcCalendar(rolloverHourUtc).dayOf(time);
}

/** The instant the trading day containing `time` started. */
export function tradingDayStart(time: Date, rolloverHourUtc: number): Date {
  return utcCalendar(rolloverHourUtc).startOf(time);
}

/** A wall clock reading of a zone as a UTC-based number (ms): Date.UTC of its year, month, day, hour, minute, second. */
type Wall = number;

const label = (wall: Wall): string => new Date(wall).toISOString().slice(0, 10);
const dayLabelStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/**
 * A trading day (SPEC 15 `trading_day`): days roll over at a wall time of a time zone, daylight
 * saving included. Day D starts at the first instant at which the zone's wall clock reads D at
 * `start` or later: on a spring-forward night whose gap holds the start, the day starts when the
 * gap ends; on a fall-back night whose repeated hour holds it, at its first occurrence (so a day
 * never starts twice). Without daylight saving (UTC) a day is always 24 hours.
 *
 * The last day found is remembered with its bounds, so asking again within it (what the engine
 * does at every quote) costs two comparisons; a zone's offsets come from Intl.
 */
export class TradingCalendar {
  /** What identifies the calendar: accounts with the same key share their days. */
  readonly key: string;
  private readonly fixed: boolean;
  private readonly format?: Intl.DateTimeFormat;
  private last = { from: Infinity, to: -Infinity, day: '' };
  private readonly starts = new Map<string, number>();

  constructor(
    readonly timezone: string,
    /** Minutes after midnight (wall time) at which a day begins. */
    readonly startMinute: number,
  ) {
    this.key = `${timezone}@${startMinute}`;
    this.fixed = timezone === 'UTC' || timezone === 'Etc/UTC';
    if (!this.fixed) {
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    }
  }

  /** The wall clock reading of the zone at `ms` (seconds precision). */
  wallAt(ms: number): Wall {
    if (this.fixed) return ms;
    const second = Math.floor(ms / 1000) * 1000;
    const parts = this.format!.formatToParts(new Date(second));
    const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) + (ms - second);
  }

  /** The instant trading day `day` (YYYY-MM-DD) starts. */
  startOfDay(day: string): Date {
    let start = this.starts.get(day);
    if (start === undefined) {
      start = this.firstInstantAtOrAfter(dayLabelStart(day) + this.startMinute * MINUTE_MS);
      if (this.starts.size > 1000) this.starts.clear();
      this.starts.set(day, start);
    }
    return new Date(start);
  }

  /** The trading day (YYYY-MM-DD) an instant belongs to. */
  dayOf(time: Date): string {
    return this.locate(time.getTime()).day;
  }

  /** The instant the trading day containing `time` started. */
  startOf(time: Date): Date {
    return new Date(this.locate(time.getTime()).from);
  }

  /** The instant the next trading day starts: the first day start strictly after `time`. */
  nextStart(time: Date): Date {
    return new Date(this.locate(time.getTime()).to);
  }

  /** The days whose spans meet [from, to], oldest first, with their starts. */
  daysBetween(from: Date, to: Date): Array<{ day: string; start: Date }> {
    const days: Array<{ day: string; start: Date }> = [];
    let at = this.locate(from.getTime());
    for (;;) {
      days.push({ day: at.day, start: new Date(at.from) });
      if (at.to > to.getTime()) return days;
      at = this.locate(at.to);
    }
  }

  /** The day containing `ms` with its bounds [from, to). */
  private locate(ms: number): { from: number; to: number; day: string } {
    const last = this.last;
    if (ms >= last.from && ms < last.to) return last;
    // The wall date shifted back by the start is the day, except right around a transition: check its bounds.
    let day = label(this.wallAt(ms) - this.startMinute * MINUTE_MS);
    let from = this.startOfDay(day).getTime();
    while (ms < from) {
      day = label(dayLabelStart(day) - DAY_MS);
      from = this.startOfDay(day).getTime();
    }
    let to = this.startOfDay(label(dayLabelStart(day) + DAY_MS)).getTime();
    while (ms >= to) {
      day = label(dayLabelStart(day) + DAY_MS);
      from = to;
      to = this.startOfDay(label(dayLabelStart(day) + DAY_MS)).getTime();
    }
    this.last = { from, to, day };
    return this.last;
  }

  /** The first instant whose wall reading is `wall` or later (wall readings only jump at transitions). */
  private firstInstantAtOrAfter(wall: Wall): number {
    if (this.fixed) return wall;
    // The zone's offsets a day either side: a wall time maps back through one of them.
    const offsets = [...new Set([this.wallAt(wall - DAY_MS) - (wall - DAY_MS), this.wallAt(wall + DAY_MS) - (wall + DAY_MS)])];
    const exact = offsets.map((offset) => wall - offset).filter((t) => this.wallAt(t) === wall);
    if (exact.length > 0) return Math.min(...exact);
    // In a gap (clocks jumped forward over `wall`): the first instant past it is the transition.
    let low = wall - Math.max(...offsets);
    let high = wall - Math.min(...offsets);
    while (high - low > 1000) {
      const mid = Math.floor((low + high) / 2000) * 1000;
      if (this.wallAt(mid) >= wall) high = mid;
      else low = mid;
    }
    return high;
  }
}

const calendars = new Map<string, TradingCalendar>();

/** The calendar whose days start at `startMinute` wall time of `timezone` (shared, with its cached days). */
export function calendarAt(timezone: string, startMinute: number): TradingCalendar {
  const key = `${timezone}@${startMinute}`;
  let found = calendars.get(key);
  if (!found) {
    found = new TradingCalendar(timezone, startMinute);
    calendars.set(key, found);
  }
  return found;
}

/** The service's trading day: UTC, rolling over at a whole hour (TRADING_DAY_ROLLOVER_HOUR_UTC). */
export function utcCalendar(rolloverHourUtc: number): TradingCalendar {
  return calendarAt('UTC', rolloverHourUtc * 60);
}

/** A phase's trading day: its own `trading_day`, or the service's. Calendars are shared (their cached days with them). */
export function calendarOf(terms: { tradingDay: TradingDay | null }, rolloverHourUtc: number): TradingCalendar {
  return terms.tradingDay ? calendarAt(terms.tradingDay.timezone, minutesOfDay(terms.tradingDay.start)) : utcCalendar(rolloverHourUtc);
}

/** The minute of the day the zone's wall clock shows at `time` (0..1439). */
export function wallMinuteOf(time: Date, timezone: string): number {
  const wall = calendarAt(timezone, 0).wallAt(time.getTime());
  return Math.floor((((wall % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
}

/** The first weekend start (Saturday 00:00 UTC) at or after the opening: holding past it is holding over the weekend. */
export function nextWeekendStart(openedAt: Date): number {
  const d = new Date(Date.UTC(openedAt.getUTCFullYear(), openedAt.getUTCMonth(), openedAt.getUTCDate()));
  const daysToSaturday = (6 - d.getUTCDay() + 7) % 7 || (openedAt.getTime() > d.getTime() ? 7 : 0);
  return d.getTime() + daysToSaturday * 24 * HOUR_MS;
}

/** True when a weekend start lies between opening and now: the position was held over it. */
export function heldOverWeekend(openedAt: Date, now: Date): boolean {
  return now.getTime() >= nextWeekendStart(openedAt);
}
