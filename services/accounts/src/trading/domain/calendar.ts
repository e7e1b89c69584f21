const HOUR_MS = 3_600_000;

/** The trading day (YYYY-MM-DD) an instant belongs to, with the day rolling over at `rolloverHourUtc`. */
export function tradingDayOf(time: Date, rolloverHourUtc: number): string {
  return new Date(time.getTime() - rolloverHourUtc * HOUR_MS).toISOString().slice(0, 10);
}

/** The instant the trading day containing `time` started. */
export function tradingDayStart(time: Date, rolloverHourUtc: number): Date {
  return new Date(Date.parse(`${tradingDayOf(time, rolloverHourUtc)}T00:00:00Z`) + rolloverHourUtc * HOUR_MS);
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
