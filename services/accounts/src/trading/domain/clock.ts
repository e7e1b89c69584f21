/**
 * What the trading module reads the time from. Nothing that decides (the engine, the use cases it
 * runs, the equity writer) reads the wall clock itself: it is given a clock, so a test sets the
 * time instead of waiting for it, and a test clock is just another clock.
 */
export interface Clock {
  /** The current instant, in milliseconds since the epoch. */
  now(): number;
}

/** The wall clock: the one place of the trading module that reads it. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still at `time` (a test's Monday morning). */
export function fixedClock(time: Date | number): Clock {
  const ms = typeof time === 'number' ? time : time.getTime();
  return { now: () => ms };
}

/** The clock's current instant as a Date. */
export function dateOf(clock: Clock): Date {
  return new Date(clock.now());
}
