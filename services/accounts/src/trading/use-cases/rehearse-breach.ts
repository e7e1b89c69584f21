import { lockAccount } from '../core-port';
import { livePositionsAndRunningStats } from '../data/closing';
import { applyBreach } from './apply-breach';
import type { TradingContext } from './trading-context';

/** Thrown inside the rehearsal's transaction so that sequelize rolls it back. */
class Rehearsed extends Error {}

/**
 * A breach of `accountNumber` run to its last statement and rolled back: nothing is written, no
 * event is sent (a NOTIFY is delivered only on commit), and the connection it ran on has the
 * verdict's tables, indexes, triggers and foreign-key checks in its backend's caches. A
 * connection's first verdict otherwise pays for loading them (30-45 ms here), which is most of a
 * breach's worst latency. The account is locked for the rehearsal's few milliseconds; one that is
 * no longer active is only locked and read. Resolves once rolled back.
 */
export async function rehearseBreach(ctx: TradingContext, accountNumber: number): Promise<void> {
  try {
    await ctx.sequelize.transaction(async (tx) => {
      const account = await lockAccount(ctx.sequelize, tx, accountNumber);
      if (!account) throw new Rehearsed();
      // The verdict's own statements (evaluate-account.ts), in its order.
      const { live, running } = await livePositionsAndRunningStats(ctx.sequelize, accountNumber, account.initialBalance, tx);
      if (account.status === 'active') {
        const observed = { equity: account.equity, peakEquity: account.peakEquity, startOfDayBalance: account.balance };
        await applyBreach(ctx, tx, account, live, observed, { rule: 'max_total_loss', limit: account.equity, reason: 'rehearsal' }, running);
      }
      throw new Rehearsed();
    });
  } catch (err) {
    if (!(err instanceof Rehearsed)) throw err;
  }
}
