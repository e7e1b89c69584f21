// `npm start`: runs the stack supervisor (stack.mjs) in its own process group, so that Ctrl-C in
// the terminal reaches only this process. The supervisor then stops everything in order —
// gateway, panel, services, and the database last — instead of PostgreSQL dying first.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const stackScript = fileURLToPath(new URL('./stack.mjs', import.meta.url));
const stack = spawn(process.execPath, [stackScript, ...process.argv.slice(2)], { stdio: 'inherit', detached: true });

let signalled = false;
const forward = () => {
  if (signalled) {
    // A second Ctrl-C: stop waiting for the graceful path.
    try { process.kill(-stack.pid, 'SIGKILL'); } catch { /* already gone */ }
    process.exit(130);
  }
  signalled = true;
  try { stack.kill('SIGTERM'); } catch { /* already gone */ }
};
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
stack.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
