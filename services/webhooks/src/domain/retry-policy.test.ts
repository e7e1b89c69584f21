import { nextRetry, parseRetryAfter, shouldDisable } from './retry-policy';

describe('retry policy', () => {
  const schedule = [5, 300, 1800];

  it('waits the scheduled step before each retry, then gives up', () => {
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 1, random: 0.5 })).toEqual({ retry: true, delayMs: 5000 });
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 3, random: 0.5 })).toEqual({ retry: true, delayMs: 1_800_000 });
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 4, random: 0.5 }).retry).toBe(false);
  });

  it('jitters by at most 10%', () => {
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 2, random: 0 }).delayMs).toBe(270_000);
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 2, random: 0.9999999 }).delayMs).toBe(330_000);
  });

  it('honours Retry-After within the schedule: never sooner than planned, never beyond the largest step', () => {
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 1, random: 0.5, retryAfterSeconds: 60 }).delayMs).toBe(60_000);
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 2, random: 0.5, retryAfterSeconds: 1 }).delayMs).toBe(300_000);
    expect(nextRetry({ scheduleSeconds: schedule, attemptsMade: 1, random: 0.5, retryAfterSeconds: 86_400 }).delayMs).toBe(1_800_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('disables an endpoint only after failing continuously for the whole window', () => {
    const now = new Date('2026-01-06T00:00:00Z');
    expect(shouldDisable(null, now, 120)).toBe(false);
    expect(shouldDisable(new Date('2026-01-01T00:00:01Z'), now, 120)).toBe(false);
    expect(shouldDisable(new Date('2026-01-01T00:00:00Z'), now, 120)).toBe(true);
  });
});
