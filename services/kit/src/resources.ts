import type { Logger } from './logger';

type Close<T> = (resource: T) => Promise<void> | void;

interface Entry {
  name: string;
  close(): Promise<void> | void;
}

export interface ResourceStackOptions {
  /** How long a whole start may take before it is abandoned (and what it opened is stopped). */
  startDeadlineMs?: number;
  /**
   * How long a whole stop may take. A step still running at the deadline is reported and left
   * behind; the steps after it still run, without being waited for. Below onShutdownSignals'
   * deadline, so a process stops cleanly before it is forced out.
   */
  stopDeadlineMs?: number;
}

export class StackClosedError extends Error {}

/**
 * What a process holds open (database, listeners, clients, timers, servers), started in order
 * and stopped in reverse. A start that fails, or passes its deadline, stops what it had opened.
 *
 *   const resources = new ResourceStack(logger);
 *   return resources.build(async () => {
 *     const db = resources.add('database', openDatabase(...), (d) => d.close());
 *     const server = await resources.start('gRPC server', () => createServer(...), (s) => s.shutdown());
 *     return { port: server.port, stop: () => resources.stop() };
 *   });
 */
export class ResourceStack {
  private readonly entries: Entry[] = [];
  private stopping: Promise<void> | undefined;
  private readonly startDeadlineMs: number;
  private readonly stopDeadlineMs: number;

  constructor(
    private readonly logger: Logger,
    options: ResourceStackOptions = {},
  ) {
    this.startDeadlineMs = options.startDeadlineMs ?? 60_000;
    this.stopDeadlineMs = options.stopDeadlineMs ?? 12_000;
  }

  /** Names of what is open, in start order. */
  get names(): string[] {
    return this.entries.map((entry) => entry.name);
  }

  /** Opens one resource and puts its close on the stack. */
  async start<T>(name: string, open: () => Promise<T> | T, close: Close<T>): Promise<T> {
    this.refuseWhenStopping(name);
    const resource = await open();
    return this.add(name, resource, close);
  }

  /** Puts an already open resource on the stack (closed at once if the stack is stopping). */
  add<T>(name: string, resource: T, close: Close<T>): T {
    if (this.stopping) {
      // a start that outlived its deadline: nothing will stop this later
      Promise.resolve()
        .then(() => close(resource))
        .catch((err: unknown) => this.logger.error({ err, resource: name }, 'closing a late resource failed'));
      throw new StackClosedError(`${name} was opened after the stop began`);
    }
    this.entries.push({ name, close: () => close(resource) });
    return resource;
  }

  /** A step for the stop only (a timer to clear, streams to end): runs in its place in reverse order. */
  onStop(name: string, close: () => Promise<void> | void): void {
    this.add(name, undefined, close);
  }

  /** Runs a whole start: when it throws or passes the start deadline, what it opened is stopped and the error rethrown. */
  async build<R>(startAll: () => Promise<R>): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`start did not finish within ${this.startDeadlineMs} ms (open: ${this.names.join(', ') || 'nothing'})`)), this.startDeadlineMs);
      timer.unref();
    });
    try {
      return await Promise.race([startAll(), deadline]);
    } catch (err) {
      await this.stop();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops everything, last opened first; every call shares the first one's outcome. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private refuseWhenStopping(name: string): void {
    if (this.stopping) throw new StackClosedError(`${name} not opened: the stop began`);
  }

  private async stopAll(): Promise<void> {
    const until = Date.now() + this.stopDeadlineMs;
    for (const entry of this.entries.splice(0).reverse()) {
      const step = Promise.resolve()
        .then(() => entry.close())
        .then(
          () => 'done' as const,
          (err: unknown) => {
            this.logger.error({ err, resource: entry.name }, 'stopping a resource failed');
            return 'done' as const;
          },
        );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), Math.max(0, until - Date.now()));
        timer.unref();
      });
      const outcome = await Promise.race([step, late]);
      clearTimeout(timer);
      if (outcome === 'late') this.logger.error({ resource: entry.name, deadlineMs: this.stopDeadlineMs }, 'stop deadline passed; not waiting for this resource');
    }
  }
}
