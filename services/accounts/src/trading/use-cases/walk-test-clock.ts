import { appendEvent, finishAdvance, lockActiveAccountsOnClock, lockAdvanceStep, writeClockTime } from '../core-port';
import { clockContext, clockQuotes, type ClockDeps } from './clock-context';
import { nextStep, type TimeEffect } from './time-effects';

export interface ClockWalkDeps extends ClockDeps {
  /** The effects of time, in order (time-effects.ts timeEffects). */
  effects: readonly TimeEffect[];
  /** How long a step's lease on the walk lasts: another runner takes the walk over only after it. */
  leaseMs: number;
}

export type WalkOutcome = 'ready' | 'lost' | 'stopped';

/**
 * Walks an advancing test clock to its end (SPEC 13), for `runner`, which holds the walk's lease:
 * time goes forward from the clock's progress one moment at a time, each moment one at which a
 * time effect acts (a trading day's start, a weekend's start, ...). Each step is one transaction
 * that locks the clock and its active accounts, moves the clock's time to the moment (so every
 * event the step records carries it, outbox.ts) and applies the effects due then: a step commits
 * its effects and its progress together, so a walk cut short anywhere (a crash, a takeover)
 * resumes from the last committed moment and applies nothing twice. At the end the clock is ready
 * at its target and test_clock.ready {id, frozen_time} is emitted, at that time. Answers 'lost'
 * when the walk is not this runner's any more (another took it over, or the clock was deleted),
 * 'stopped' when `signal` asked it to stop between steps.
 */
export async function walkTestClock(deps: ClockWalkDeps, clockId: string, runner: string, signal: AbortSignal): Promise<WalkOutcome> {
  const { sequelize } = deps;
  // An advancing clock takes no quotes: its prices are the same for the whole walk.
  const quotes = await clockQuotes(sequelize, clockId);
  for (;;) {
    if (signal.aborted) return 'stopped';
    const outcome = await sequelize.transaction(async (tx): Promise<WalkOutcome | 'stepped'> => {
      const clock = await lockAdvanceStep(sequelize, tx, clockId, runner, deps.leaseMs);
      if (!clock?.advanceTo) return 'lost';
      const accounts = await lockActiveAccountsOnClock(sequelize, tx, clockId);
      const view = { sequelize, tx, clockId, accounts };
      const next = await nextStep(deps.effects, clock.frozenTime, clock.advanceTo, view);
      if (!next) {
        const ready = await finishAdvance(sequelize, tx, clockId);
        await appendEvent(sequelize, tx, {
          organizationId: ready.organizationId,
          livemode: ready.livemode,
          type: 'test_clock.ready',
          data: { id: ready.id, frozen_time: ready.frozenTime.toISOString() },
          createdAt: ready.frozenTime,
        });
        return 'ready';
      }
      await writeClockTime(sequelize, tx, clockId, next.moment);
      const step = { ...view, moment: next.moment, ctx: clockContext(deps, clockId, next.moment, quotes) };
      for (const effect of next.due) await effect.apply(step);
      return 'stepped';
    });
    if (outcome !== 'stepped') return outcome;
  }
}
