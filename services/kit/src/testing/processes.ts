import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The repository root: the nearest parent holding package-lock.json (from src/ or dist/ alike). */
export const REPOSITORY_ROOT = (() => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package-lock.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
})();

export interface SpawnedService {
  child: ChildProcess;
  port: number;
  /** 127.0.0.1:port */
  address: string;
}

/**
 * Runs `node <mainJs>` (a service's compiled main) with LOG_LEVEL=info and resolves once it logs
 * `listening` (the JSON log line that carries its port, e.g. "webhooks service listening");
 * rejects if the process exits first or after `timeoutMs`. Its stderr goes to the test's.
 */
export function spawnService(mainJs: string, options: { env: NodeJS.ProcessEnv; listening: string; timeoutMs?: number }): Promise<SpawnedService> {
  const child = spawn(process.execPath, [mainJs], { env: { ...process.env, ...options.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const name = path.basename(path.dirname(path.dirname(mainJs)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not log "${options.listening}" within ${options.timeoutMs ?? 30_000} ms`)), options.timeoutMs ?? 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === options.listening && entry.port !== undefined) {
          clearTimeout(timer);
          resolve({ child, port: entry.port, address: `127.0.0.1:${entry.port}` });
        }
      } catch {
        /* not a log line */
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited early (${code ?? signal})`));
    });
  });
}

/** Sends `signal` and resolves once the process has exited (at once if it already has). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
