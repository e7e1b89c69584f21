import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './ports';

/**
 * A redis-server of the test's (or benchmark's) own, on its own port, so it can be stopped,
 * paused and counted without touching the shared Redis other suites use.
 */
export interface OwnRedisServer {
  readonly port: number;
  readonly url: string;
  /** SIGTERM and wait for the exit: clients see a closed connection, then refused reconnections. */
  stop(): Promise<void>;
  /** Starts again on the same port (nothing persisted). */
  restart(): Promise<void>;
  /** SIGSTOP: the connection stays open but nothing answers (a slow or hung Redis). */
  pause(): void;
  resume(): void;
  /** Commands so far (INFO commandstats, without connection housekeeping). */
  commandCount(): Promise<CommandCount>;
}

export interface CommandCount {
  /**
   * Commands clients sent (round trips). commandstats also counts the commands a Lua script runs,
   * so the ones the limiter's script runs (set, incrby, pttl, expire) are left out: the limiter
   * never sends them on their own.
   */
  roundTrips: number;
  /** Every command Redis executed, those inside scripts included. */
  executed: number;
}

const SCRIPT_INNER = new Set(['set', 'incrby', 'pttl', 'expire']);
const HOUSEKEEPING = new Set(['info', 'client', 'ping', 'select', 'hello', 'command', 'quit', 'config', 'script']);

/** Sends one inline command and returns the raw reply once the connection goes quiet. */
function rawCommand(port: number, command: string, timeoutMs = 500): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on ${port} did not answer ${command}`));
    }, timeoutMs);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      // A bulk reply is complete once its announced length has arrived.
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      const complete = bulk ? reply.length >= bulk[0].length + Number(bulk[1]) + 2 : reply.endsWith('\r\n');
      if (complete) {
        clearTimeout(timer);
        socket.end();
        resolve(reply);
      }
    });
    socket.write(`${command}\r\n`);
  });
}

async function waitUntilUp(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${child.exitCode}`);
    try {
      if ((await rawCommand(port, 'PING', 200)).startsWith('+PONG')) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  throw new Error(`redis-server on ${port} did not start`);
}

export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const launch = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      { stdio: 'ignore' },
    );
    child = started;
    await waitUntilUp(port, started);
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGCONT');
        running.kill('SIGTERM');
      });
    },
    restart: launch,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async commandCount() {
      const info = await rawCommand(port, 'INFO commandstats');
      const count: CommandCount = { roundTrips: 0, executed: 0 };
      for (const match of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) {
        const name = match[1].split('|')[0];
        if (HOUSEKEEPING.has(name)) continue;
        const calls = Number(match[2]);
        count.executed += calls;
        if (!SCRIPT_INNER.has(name)) count.roundTrips += calls;
      }
      return count;
    },
  };
}
