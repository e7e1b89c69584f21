// Started by the stack supervisor (stack.mjs) next to the embedded PostgreSQL, which does not
// watch its parent: a postmaster whose supervisor was SIGKILLed would live on, holding its port
// and its data directory, and the next `npm start` could not use either (SPEC 3, "Stopping").
//
//   node scripts/postgres-watchdog.cjs <data directory>      (with an IPC channel to the supervisor)
//
// The supervisor sends {postmaster: pid} once PostgreSQL runs and {services: [pid...]} whenever
// its children change. When the supervisor is gone (the channel closes, or this process is
// re-parented), the watchdog waits a little for the services to end (they stop on their own:
// end-with-supervisor.cjs), then stops the postmaster: fast shutdown, then immediate, then kill,
// all within SPEC's 20 s. On a normal stop the supervisor stops PostgreSQL itself; the watchdog
// then finds no postmaster and just exits.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const dataDir = process.argv[2];
const supervisorPid = process.ppid;
let postmaster = 0;
let services = [];
let stopping = false;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    // A zombie answers signal 0 but is gone for our purpose.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
  } catch {
    /* no /proc here: fall back to signal 0 */
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Only ever signal the process PostgreSQL itself names in its lock file (no pid reuse accidents). */
function postmasterRunning() {
  if (!postmaster || !alive(postmaster)) return false;
  try {
    const owner = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return owner === postmaster;
  } catch {
    return false;
  }
}

async function stopPostgres() {
  if (stopping) return;
  stopping = true;
  if (!postmasterRunning()) process.exit(0);
  // The services' last transactions should commit before the database goes.
  const servicesDeadline = Date.now() + 10_000;
  while (Date.now() < servicesDeadline && services.some(alive)) await sleep(200);
  // SIGINT: fast shutdown (sessions end, clean checkpoint); SIGQUIT: immediate; SIGKILL: last resort.
  for (const [signal, waitMs] of [['SIGINT', 5_000], ['SIGQUIT', 2_000], ['SIGKILL', 1_000]]) {
    if (!postmasterRunning()) break;
    try { process.kill(postmaster, signal); } catch { break; }
    const until = Date.now() + waitMs;
    while (Date.now() < until && alive(postmaster)) await sleep(100);
  }
  process.exit(0);
}

// Signals meant for the whole process group must not take the watchdog away before the database.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});

process.on('message', (message) => {
  if (message && Number.isInteger(message.postmaster)) postmaster = message.postmaster;
  if (message && Array.isArray(message.services)) services = message.services.filter(Number.isInteger);
});
process.on('disconnect', stopPostgres);
setInterval(() => {
  if (process.ppid !== supervisorPid) stopPostgres();
}, 1000);
