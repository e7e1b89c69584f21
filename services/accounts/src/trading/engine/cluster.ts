import { randomUUID } from 'node:crypto';
import { execute, listenToChannel, type ChannelListener, type Logger, type Sequelize } from '@propdesk/kit';
import { pruneLeases, releaseLease, renewLease } from '../data/engine-leases';
import type { Quote } from '../domain/instruments';
import { Ring } from './ring';

/** What the engine needs of its replicas: which accounts are its own, and every quote any replica received. */
export interface EngineCluster {
  readonly replicaId: string;
  /** Whether this replica evaluates the account (consistent hashing over the live leases). */
  owns(accountNumber: number): boolean;
  /** Replicas in the current membership, this one included. */
  size(): number;
  /** Takes the first lease and starts listening; `onMembership` is called when the membership changes, `onQuote` with other replicas' quotes. */
  start(handlers: { onMembership(): void; onQuote(quote: Quote): void }): Promise<void>;
  /** Fans a quote this replica received out to the others (none while it is alone). */
  publish(quote: Quote): void;
  /** Resolves once every quote published so far was sent (or dropped by a failed send). */
  sent(): Promise<void>;
  /** Gives the lease back (the others take the accounts at once) and stops listening. */
  stop(): Promise<void>;
}

export const QUOTES_CHANNEL = 'propdesk_trading_quotes';
/** A NOTIFY payload holds up to 8000 bytes: quotes travel in batches well under that. */
const QUOTES_PER_NOTIFY = 80;

type WireQuote = [symbol: string, bid: number, ask: number, timeMs: number];

export interface PgClusterOptions {
  sequelize: Sequelize;
  databaseUrl: string;
  logger: Logger;
  /** A lease not renewed for this long is expired: its replica's accounts move (default 3000 ms). */
  leaseTtlMs?: number;
  /** How often the lease is renewed and the membership read (default 1000 ms). */
  renewMs?: number;
}

/**
 * Replicas of the trading engine on one database: membership through PostgreSQL leases
 * (engine_leases: each replica renews its own row, the live rows are the members), accounts
 * partitioned over the members by consistent hashing (ring.ts), and every quote a replica receives
 * fanned out to the others with NOTIFY (batched; the others LISTEN on one connection each).
 * No consensus of our own: every replica computes the same owner from the same rows; while two
 * replicas briefly disagree (one saw a lease expire a renewal earlier) an account may be
 * evaluated twice, which the locked re-check makes harmless. * Leases are timed by PostgreSQL's clock (now() in data/engine-leases.ts), the one clock every
 * replica shares; the engine's clock (domain/clock.ts) is the trading time and never expires a lease.
 */
export class PgCluster implements EngineCluster {
  readonly replicaId = randomUUID();
  private ring = new Ring([this.replicaId]);
  private timer?: NodeJS.Timeout;
  private listener?: ChannelListener;
  private outbox: WireQuote[] = [];
  private sending = false;
  /** The send in flight (publish schedules it): what sent() awaits. */
  private sendRun: Promise<void> = Promise.resolve();
  private stopped = false;
  private handlers?: { onMembership(): void; onQuote(quote: Quote): void };
  private readonly ttlMs: number;
  private readonly renewMs: number;

  constructor(private readonly options: PgClusterOptions) {
    this.ttlMs = options.leaseTtlMs ?? 3000;
    this.renewMs = options.renewMs ?? 1000;
  }

  owns(accountNumber: number): boolean {
    return this.ring.ownerOf(accountNumber) === this.replicaId;
  }

  size(): number {
    return this.ring.members.length;
  }

  async start(handlers: { onMembership(): void; onQuote(quote: Quote): void }): Promise<void> {
    this.handlers = handlers;
    // A start retried after a failed first load keeps the listener it has.
    this.listener ??= listenToChannel({
      databaseUrl: this.options.databaseUrl,
      channel: QUOTES_CHANNEL,
      applicationName: 'propdesk-accounts-quotes',
      logger: this.options.logger,
      onNotification: (payload) => this.received(payload),
    });
    await this.listener.listening;
    await this.renew();
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.renew(), this.renewMs);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    try {
      const members = await renewLease(this.options.sequelize, this.replicaId, this.ttlMs);
      if (Math.random() < 0.05) await pruneLeases(this.options.sequelize, 3600);
      if (this.stopped) return;
      const current = this.ring.members;
      if (members.length !== current.length || members.some((m, i) => m !== current[i])) {
        this.ring = new Ring(members);
        this.options.logger.info({ replica: this.replicaId, members: members.length }, 'trading engine membership changed');
        this.handlers?.onMembership();
      }
    } catch (err) {
      // Without a renewed lease the others take this replica's accounts once it expires; keep going meanwhile.
      if (!this.stopped) this.options.logger.warn({ err }, 'trading engine lease renewal failed');
    }
  }

  publish(quote: Quote): void {
    // Alone, there is no one to tell (a NOTIFY per quote would cost a statement each). A replica
    // that joins is seen here within a renewal; until then this one still owns, and evaluates,
    // every account, the newcomer's included.
    if (this.stopped || this.ring.members.length < 2) return;
    this.outbox.push([quote.symbol, quote.bid, quote.ask, quote.time.getTime()]);
    if (!this.sending) {
      this.sending = true;
      this.sendRun = new Promise((resolve) => setImmediate(() => void this.send().then(resolve)));
    }
  }

  async sent(): Promise<void> {
    while (this.sending) await this.sendRun;
  }

  private async send(): Promise<void> {
    try {
      while (this.outbox.length > 0 && !this.stopped) {
        const batch = this.outbox.splice(0, QUOTES_PER_NOTIFY);
        await execute(this.options.sequelize, 'SELECT pg_notify($channel, $payload)', {
          channel: QUOTES_CHANNEL,
          payload: JSON.stringify({ from: this.replicaId, quotes: batch }),
        });
      }
    } catch (err) {
      this.outbox = [];
      if (!this.stopped) this.options.logger.warn({ err }, 'quote fan-out failed');
    } finally {
      this.sending = false;
    }
  }

  private received(payload: string): void {
    let message: { from: string; quotes: WireQuote[] };
    try {
      message = JSON.parse(payload) as { from: string; quotes: WireQuote[] };
    } catch {
      return;
    }
    if (message.from === this.replicaId || !Array.isArray(message.quotes)) return;
    for (const [symbol, bid, ask, timeMs] of message.quotes) this.handlers?.onQuote({ symbol, bid, ask, time: new Date(timeMs) });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener?.close();
    await releaseLease(this.options.sequelize, this.replicaId).catch(() => undefined);
  }
}
