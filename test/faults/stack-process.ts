import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { portIsFree, REPOSITORY_ROOT } from '@propdesk/kit/testing';

/** Where the services log "shutting down" when stopped, in the order SPEC 3 stops them. */
export const STOP_ORDER = ['gateway', 'panel', 'market-feed', 'webhooks', 'accounts', 'auth'];

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: a pid with another start time is another process. */
  started: string;
  command: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), started: fields[19], command };
  } catch {
    return undefined;
  }
}

function processTable(): ProcessInfo[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((p): p is ProcessInfo => p !== undefined);
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
  } catch {
    return false;
  }
}

/**
 * Every live process of one stack: those whose environment holds its marker, those seen in it
 * earlier (same pid and start time), and their descendants (PostgreSQL's backends rewrite the
 * memory /proc shows as their environment, so they are found through their postmaster).
 */
export function stackProcesses(marker: string, seen: ProcessInfo[] = []): ProcessInfo[] {
  const table = processTable();
  const known = new Set(seen.map((p) => `${p.pid}/${p.started}`));
  const found = new Map<number, ProcessInfo>();
  for (const p of table) {
    if (p.pid !== process.pid && (known.has(`${p.pid}/${p.started}`) || hasMarker(p.pid, marker))) found.set(p.pid, p);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

export interface StackPorts {
  PORT: number;
  AUTH_GRPC_PORT: number;
  ACCOUNTS_GRPC_PORT: number;
  WEBHOOKS_GRPC_PORT: number;
  PANEL_PORT: number;
}

/** Five consecutive ports from `first`. */
export function portsFrom(first: number): StackPorts {
  return { PORT: first, AUTH_GRPC_PORT: first + 1, ACCOUNTS_GRPC_PORT: first + 2, WEBHOOKS_GRPC_PORT: first + 3, PANEL_PORT: first + 4 };
}

export interface LaunchOptions {
  /**
   * `npm`: `npm start`, as a user types it. `node`: `node scripts/start.mjs` (what npm runs after
   * its build; the suite builds first). `sh`: a shell command line (e.g. a pipeline around npm start).
   */
  via: 'npm' | 'node' | 'sh';
  shellCommand?: string;
  ports: StackPorts;
  /** DATABASE_URL, PROPDESK_DATA_DIR... (undefined removes a variable inherited from the test). */
  env: Record<string, string | undefined>;
}

export interface StackRun {
  /** The launched process, leader of its own process group, as a terminal's foreground job. */
  child: ChildProcess;
  marker: string;
  ports: StackPorts;
  stdout(): string;
  stderr(): string;
  /** Resolves on the ready line, rejects if the process exits first or after 120 s. */
  ready: Promise<void>;
  exited: Promise<void>;
  /** Every process of the stack seen so far (call after ready; kept for the leftover check). */
  seen: ProcessInfo[];
}

export function launch(options: LaunchOptions): StackRun {
  const marker = `PROPDESK_FAULTS_STACK=${randomBytes(8).toString('hex')}`;
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  for (const [name, value] of Object.entries({ ...options.ports, ...options.env })) {
    if (value === undefined) delete env[name];
    else env[name] = String(value);
  }
  const [name, value] = marker.split('=');
  env[name] = value;
  const [command, args] =
    options.via === 'npm' ? ['npm', ['start']] : options.via === 'node' ? [process.execPath, ['scripts/start.mjs']] : ['sh', ['-c', options.shellCommand ?? '']];
  const child = spawn(command, args, { cwd: REPOSITORY_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readyLine = `PropDesk ready on http://127.0.0.1:${options.ports.PORT}`;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 120 s:\n${err.slice(-4000)}`)), 120_000);
    const check = () => {
      if (out.includes(readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before the ready line:\n${err.slice(-4000)}`));
    });
  });
  ready.catch(() => {});
  const run: StackRun = { child, marker, ports: options.ports, stdout: () => out, stderr: () => err, ready, exited, seen: [] };
  ready.then(() => (run.seen = stackProcesses(marker)), () => {});
  return run;
}

/** A leftover process, described for a failure message: pid, state, where it waits, command. */
export function describeProcess(p: ProcessInfo): string {
  const read = (file: string) => {
    try {
      return fs.readFileSync(`/proc/${p.pid}/${file}`, 'utf8').trim();
    } catch {
      return '?';
    }
  };
  const state = /^State:\s*(.*)$/m.exec(read('status'))?.[1] ?? '?';
  let threads: string[] = [];
  try {
    threads = fs.readdirSync(`/proc/${p.pid}/task`).map((task) => `${read(`task/${task}/comm`)}: ${read(`task/${task}/wchan`)} (syscall ${read(`task/${task}/syscall`).split(' ')[0]})`);
  } catch {
    /* gone meanwhile */
  }
  return `${p.pid} [${state}] ${p.command}; threads: ${threads.join(', ')}`;
}

/** The process of a stack whose command line matches. */
export function findProcess(run: StackRun, pattern: RegExp): ProcessInfo {
  const found = stackProcesses(run.marker, run.seen).find((p) => pattern.test(p.command));
  if (!found) throw new Error(`no process matching ${pattern} in the stack`);
  return found;
}

export interface Leftovers {
  ms: number;
  processes: ProcessInfo[];
  busyPorts: number[];
}

/** Waits until no process of the stack is left and its ports are free, or until timeoutMs. */
export async function waitUntilGone(run: StackRun, timeoutMs = 20_000, extraPorts: number[] = []): Promise<Leftovers> {
  const started = Date.now();
  const ports = [...Object.values(run.ports), ...extraPorts];
  for (;;) {
    const processes = stackProcesses(run.marker, run.seen);
    const busyPorts: number[] = [];
    for (const port of ports) if (!(await portIsFree(port))) busyPorts.push(port);
    const ms = Date.now() - started;
    if ((processes.length === 0 && busyPorts.length === 0) || ms >= timeoutMs) return { ms, processes, busyPorts };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** After a failed test: nothing of this stack may linger and spoil the next one. */
export async function killLeftovers(run: StackRun): Promise<void> {
  for (const p of stackProcesses(run.marker, run.seen)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await run.exited;
}

/** The service names in the order their "shutting down" lines appear in the stack's log. */
export function shutdownOrder(log: string): string[] {
  const names: string[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { name?: string; msg?: string };
      if (entry.msg === 'shutting down' && entry.name && !names.includes(entry.name)) names.push(entry.name);
    } catch {
      /* a line split across two chunks of a relayed log: not a shutdown line */
    }
  }
  return names;
}
