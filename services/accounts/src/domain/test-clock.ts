import { randomBytes } from 'node:crypto';
import { AppError, type TenantScope } from '@propdesk/kit';

/**
 * A test clock (SPEC 13): a time and a price universe of test mode, Stripe's test clocks as the
 * model. Accounts provisioned on it live at its frozen time; advancing walks that time forward.
 */
export type TestClockStatus = 'ready' | 'advancing';

export interface TestClock {
  id: string;
  organizationId: string;
  /** Always false: clocks exist in test mode only. */
  livemode: boolean;
  name: string | null;
  /**
   * The instant its accounts live at. While advancing it is the walk's progress: each step of the
   * walk moves it to the moment whose effects that step applied.
   */
  frozenTime: Date;
  status: TestClockStatus;
  /** While advancing: where the walk ends. */
  advanceTo: Date | null;
  createdAt: Date;
}

/** How far a clock may be set ahead of now, or advanced ahead of its own time. */
export const MAX_ADVANCE_DAYS = 366;
const DAY_MS = 86_400_000;

/** A new clock id: `clock_` and 128 random bits in hex. */
export function newTestClockId(): string {
  return `clock_${randomBytes(16).toString('hex')}`;
}

const CLOCK_ID = /^clock_[0-9a-f]{32}$/;

export function isTestClockId(value: unknown): value is string {
  return typeof value === 'string' && CLOCK_ID.test(value);
}

/** An id that is not a clock id names no clock: not_found, like an unknown one. */
export function testClockId(value: string | undefined): string {
  if (!isTestClockId(value)) throw testClockNotFound();
  return value;
}

export function testClockNotFound(): AppError {
  return new AppError('not_found', 'test clock not found');
}

/** Clocks are a test-mode object: a live key is refused, naming test mode. */
export function requireTestMode(scope: TenantScope, what = 'test clocks'): void {
  if (scope.livemode) throw new AppError('forbidden', `${what} exist in test mode only: use a test key (pfx_test_...)`);
}

/** What the clock shows as its time: while advancing, the time it is advancing to (Stripe's reading). */
export function shownFrozenTime(clock: TestClock): Date {
  return clock.status === 'advancing' && clock.advanceTo ? clock.advanceTo : clock.frozenTime;
}

/** A new clock's frozen time: now when absent, never more than MAX_ADVANCE_DAYS ahead of now. */
export function initialFrozenTime(value: Date | undefined, nowMs: number): Date {
  if (value === undefined) return new Date(nowMs);
  requireValidTime(value);
  if (value.getTime() > nowMs + MAX_ADVANCE_DAYS * DAY_MS) {
    throw new AppError('invalid_request', `frozen_time may be at most ${MAX_ADVANCE_DAYS} days ahead of now`, 'frozen_time');
  }
  return value;
}

/** Where an advance may go: later than the clock's time, at most MAX_ADVANCE_DAYS later. */
export function advanceTarget(clock: TestClock, value: Date | undefined): Date {
  if (value === undefined) throw new AppError('invalid_request', 'frozen_time is required', 'frozen_time');
  requireValidTime(value);
  const from = clock.frozenTime.getTime();
  if (value.getTime() <= from) {
    throw new AppError('invalid_request', `frozen_time must be later than the clock's frozen_time (${clock.frozenTime.toISOString()})`, 'frozen_time');
  }
  if (value.getTime() > from + MAX_ADVANCE_DAYS * DAY_MS) {
    throw new AppError('invalid_request', `frozen_time may be at most ${MAX_ADVANCE_DAYS} days after the clock's frozen_time (${clock.frozenTime.toISOString()})`, 'frozen_time');
  }
  return value;
}

/** Years 2000 to 9999: what the REST surface writes back as ISO 8601 and PostgreSQL keeps exactly. */
function requireValidTime(value: Date): void {
  const ms = value.getTime();
  if (!Number.isFinite(ms) || ms < Date.UTC(2000, 0, 1) || ms >= Date.UTC(10000, 0, 1)) {
    throw new AppError('invalid_request', 'frozen_time must be a time from the year 2000 on', 'frozen_time');
  }
}
