// @ts-check
// `npm start` (the script `exec`s this file, so npm's SIGTERM reaches it and not a shell): runs
// the stack supervisor (stack.mjs) in its own process group, so that Ctrl-C in the terminal
// reaches only this process. The supervisor then stops everything in order — gateway, panel,
// services, and the database last — instead of every process dying at once.
//
// What stops the stack (in order, within 20 s): SIGINT, SIGTERM or SIGHUP to this process, or the
// end of its parent (npm killed). The supervisor also stops when this process is gone, through the
// IPC channel between them. A second Ctrl-C, a second or more after the first, kills the stack
// at once.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const stackScript = fileURLToPath(new URL('./stack.mjs', import.meta.url));
const stack = spawn(process.execPath, [stackScript, ...process.argv.slice(2)], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  detached: true,
});

// Our output may go away too (a closed pipe): never die of it, the stack needs us to pass signals on.
/** @param {string} msg */
const note = (msg) => {
  try { process.stderr.write(`[propdesk] ${msg}\n`); } catch { /* nobody is reading */ }
};
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

let stopRequested = 0;
/** @param {NodeJS.Signals | 'parent'} signal */
const stop = (signal) => {
  if (stopRequested) {
    // npm passes the terminal's Ctrl-C on to us too, so one keypress arrives twice: only a later
    // SIGINT means "stop waiting".
    if (signal !== 'SIGINT' || Date.now() - stopRequested < 1000) return;
    try { process.kill(-(/** @type {number} */ (stack.pid)), 'SIGKILL'); } catch { /* already gone */ }
    process.exit(130);
  }
  stopRequested = Date.now();
  try { stack.kill('SIGTERM'); } catch { /* already gone */ }
};
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) process.on(signal, () => stop(signal));

// npm (or the shell) killed without a chance to pass a signal on: we are re-parented.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('parent');
}, 1000).unref();

stack.on('exit', (code, signal) => {
  if (signal === 'SIGKILL' && !stopRequested) note('the stack supervisor was killed; its services stop on their own');
  process.exit(code ?? (signal ? 1 : 0));
});
