import type { Logger, Sequelize } from '@propdesk/kit';
import { liveAccountNumbers } from '../data/engine-leases';
import type { Quote } from '../domain/instruments';
import type { AccountIndex } from './account-index';
import type { EngineCluster } from './cluster';
import { SOD_CHUNK } from './day-starts';

/** A rebalance that failed (the database unreachable for a moment) runs again after this long. */
const REBALANCE_RETRY_MS = 1000;

export interface ReplicaShareOptions {
  /** The replicas (engine/cluster.ts); without one, this replica owns every account. */
  cluster?: EngineCluster;
  sequelize: Sequelize;
  logger: Logger;
  index: AccountIndex;
  /** The engine's first load (a rebalance waits for it). */
  ready(): Promise<void>;
  /** Marks the accounts at the latest quotes and judges what crossed (the engine's evaluate). */
  evaluate(numbers: number[]): Promise<void>;
  /** Aborted when the engine stops: no rebalance begins again after that. */
  closed: AbortSignal;
}

/**
 * This replica's share of the accounts: which it owns (consistent hashing over the live leases,
 * cluster.ts), the quotes it fans out to the others, the other replicas' accounts it visits for
 * one unary quote, and what it drops and takes when the membership changes.
 */
export class ReplicaShare {
  private rebalancing?: Promise<void>;
  private rebalanceAgain = false;

  constructor(private readonly options: ReplicaShareOptions) {}

  owns(accountNumber: number): boolean {
    return this.options.cluster?.owns(accountNumber) ?? true;
  }

  /** Replicas in the current membership, this one included (1 without a cluster). */
  size(): number {
    return this.options.cluster?.size() ?? 1;
  }

  /** Joins the replicas: `onQuote` gets every quote another replica received. */
  async start(onQuote: (quote: Quote) => void): Promise<void> {
    await this.options.cluster?.start({ onMembership: () => void this.rebalance(), onQuote });
  }

  /** Fans a quote this replica received out to the others. */
  publish(quote: Quote): void {
    this.options.cluster?.publish(quote);
  }

  /** Loads the accounts of other replicas holding `symbol` (none without a cluster of several), for one quote. */
  async visit(symbol: string): Promise<number[]> {
    const { cluster, index } = this.options;
    if (!cluster || cluster.size() < 2) return [];
    const guests = (await liveAccountNumbers(this.options.sequelize, symbol)).filter((n) => !this.owns(n) && !index.accounts.has(n));
    await index.reload(guests, true);
    return guests;
  }

  /** Lets go of visited accounts this replica does not own. */
  leave(numbers: number[]): void {
    const { index } = this.options;
    for (const n of numbers) {
      const s = index.accounts.get(n);
      if (s && !this.owns(n)) index.drop(s);
    }
  }

  /**
   * The membership changed: drop the accounts this replica no longer owns, load the ones it gained
   * and evaluate them at once at the cached quotes (a breach that happened while nobody owned them
   * is found now). One rebalance at a time; a change during one runs another after it, and one
   * that failed runs again after REBALANCE_RETRY_MS (until then, accounts this replica gained have
   * no owner that watches them).
   */
  rebalance(): Promise<void> {
    // A replica that is stopping takes nothing more: the others take its accounts once it has left.
    if (this.options.closed.aborted) return this.rebalancing ?? Promise.resolve();
    if (this.rebalancing) {
      this.rebalanceAgain = true;
      return this.rebalancing;
    }
    this.rebalancing = (async () => {
      const { index, logger } = this.options;
      do {
        this.rebalanceAgain = false;
        try {
          await this.options.ready();
          for (const s of [...index.accounts.values()]) if (!this.owns(s.account.number)) index.drop(s);
          const gained = (await liveAccountNumbers(this.options.sequelize)).filter((n) => this.owns(n) && !index.accounts.has(n));
          for (let i = 0; i < gained.length; i += SOD_CHUNK) {
            const chunk = gained.slice(i, i + SOD_CHUNK);
            await index.reload(chunk);
            await this.options.evaluate(chunk);
          }
          logger.info({ accounts: index.accounts.size, gained: gained.length }, 'trading engine took its share of accounts');
        } catch (err) {
          logger.error({ err }, 'trading engine rebalance failed; trying again shortly');
          setTimeout(() => void this.rebalance(), REBALANCE_RETRY_MS).unref();
        }
      } while (this.rebalanceAgain && !this.options.closed.aborted);
      this.rebalancing = undefined;
    })();
    return this.rebalancing;
  }

  /** Resolves once no rebalance runs and every quote published so far was fanned out. */
  async settled(): Promise<void> {
    while (this.rebalancing) await this.rebalancing;
    await this.options.cluster?.sent();
  }

  /** Leaves the replicas: the lease is given back, so the others take this replica's accounts at once. */
  async stop(): Promise<void> {
    await this.options.cluster?.stop().catch((err: unknown) => this.options.logger.warn({ err }, 'leaving the replicas failed'));
  }
}
