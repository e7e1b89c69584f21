import { secondsUntil, toDecision } from './decision';

describe('limit decisions', () => {
  it('rounds the time left up to whole seconds, at least 1 while any time is left', () => {
    expect(secondsUntil(1)).toBe(1);
    expect(secondsUntil(999)).toBe(1);
    expect(secondsUntil(1000)).toBe(1);
    expect(secondsUntil(1001)).toBe(2);
    expect(secondsUntil(60_000)).toBe(60);
    expect(secondsUntil(0)).toBe(0);
    expect(secondsUntil(-1)).toBe(0);
  });

  it('an allowed request reports what is left of the bucket and when it resets', () => {
    expect(toDecision(true, 120, { remainingPoints: 119, msBeforeNext: 59_950 })).toEqual({
      allowed: true,
      limit: 120,
      remaining: 119,
      resetSeconds: 60,
      retryAfterSeconds: 60,
    });
  });

  it('a refused request has nothing left and a Retry-After of at least one second', () => {
    expect(toDecision(false, 120, { remainingPoints: 5, msBeforeNext: 10 })).toMatchObject({
      allowed: false,
      remaining: 0,
      resetSeconds: 1,
      retryAfterSeconds: 1,
    });
    expect(toDecision(false, 60, { remainingPoints: 0, msBeforeNext: 0 }).retryAfterSeconds).toBe(1);
  });

  it('remaining never exceeds the limit the client is told', () => {
    expect(toDecision(true, 10, { remainingPoints: 50, msBeforeNext: 1000 }).remaining).toBe(10);
  });
});
