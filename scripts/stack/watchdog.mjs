// @ts-check
// The supervisor's end of stack-watchdog.cjs: started first, so that nothing the supervisor
// starts can outlive it; told over IPC which pids to stop should the supervisor be killed.
import { spawn } from 'node:child_process';

/**
 * @typedef {{ services: number[] } | { postgres: { pid: number, dataDir: string } }} WatchdogMessage
 * @typedef {{ tell(message: WatchdogMessage): boolean }} Watchdog
 */

/**
 * @param {string} script stack-watchdog.cjs
 * @param {{ say(msg: string): void, isStopping(): boolean }} supervisor
 * @returns {Watchdog}
 */
export function startWatchdog(script, supervisor) {
  const watchdog = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  watchdog.on('error', (err) => supervisor.say(`stack watchdog: ${err.message}`));
  watchdog.on('exit', (code, signal) => {
    if (!supervisor.isStopping()) supervisor.say(`the stack watchdog ended unexpectedly (code ${code}, signal ${signal})`);
  });
  return {
    tell(message) {
      if (!watchdog.connected) return false;
      try { watchdog.send(message); return true; } catch { return false; }
    },
  };
}
