// Started by the stack supervisor (stack.mjs) before anything else, with an IPC channel. If the
// supervisor is SIGKILLed, every process it started must still end within 20 s (SPEC 3,
// "Stopping"), so that the next `npm start` finds its ports and data directory free:
//   - the services notice on their own and drain (end-with-supervisor.cjs); whichever is still
//     there after SERVICES_MS (a hang the process cannot get out of by itself) is killed here;
//   - the embedded PostgreSQL does not watch its parent at all: it is stopped here, after the
//     services, so their last transactions commit first (fast shutdown, then immediate, then kill).
// The supervisor sends {services: [pid...]} whenever its children change, and
// {postgres: {pid, dataDir}} once the postmaster is spawned. On a normal stop the supervisor has
// stopped everything itself: the watchdog finds nothing left and exits with it.
// @ts-check
'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Services end on their own within 12 s (end-with-supervisor.cjs); PostgreSQL gets the rest.
const SERVICES_MS = 13_000;
/** @type {Array<[NodeJS.Signals, number]>} */
const POSTGRES_STEPS = [['SIGINT', 4_000], ['SIGQUIT', 1_000], ['SIGKILL', 500]];

const supervisorPid = process.ppid;
/** pid -> start time, so that a pid reused by another process is never signalled. @type {Map<number, string>} */
let services = new Map();
/** @type {{ pid: number, dataDir: string, started: string } | undefined} */
let postgres;
let stopping = false;

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// What it does goes to the stack's stderr, so a stop that went wrong can be read afterwards;
// that output may have gone away (a closed pipe), which must never end the watchdog.
process.stderr.on('error', () => {});
/** @param {string} msg */
const say = (msg) => {
  try { process.stderr.write(`[propdesk] watchdog: ${msg}\n`); } catch { /* nobody is reading */ }
};

/**
 * Start time of a live process (clock ticks since boot), '' where /proc is missing, undefined when gone.
 * @param {number} pid
 * @returns {string | undefined}
 */
function startTime(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT' || fs.existsSync('/proc/self/stat')) return undefined;
    try { process.kill(pid, 0); return ''; } catch (e) { return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM' ? '' : undefined; }
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? undefined : fields[19];
}

/** @param {number} pid @param {string} started */
const alive = (pid, started) => startTime(pid) === started;

/** Only ever signal the postmaster PostgreSQL itself names in its lock file. */
function postmasterRunning() {
  if (!postgres || !alive(postgres.pid, postgres.started)) return false;
  try {
    const owner = Number(fs.readFileSync(path.join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return owner === postgres.pid;
  } catch {
    return false;
  }
}

const servicesLeft = () => [...services].filter(([pid, started]) => alive(pid, started));

async function stopEverything() {
  if (stopping) return;
  stopping = true;
  const began = Date.now();
  const deadline = began + SERVICES_MS;
  if (servicesLeft().length > 0) say(`the supervisor is gone; waiting for ${servicesLeft().length} service(s) to end`);
  while (servicesLeft().length > 0 && Date.now() < deadline) await sleep(200);
  for (const [pid] of servicesLeft()) {
    say(`service ${pid} still running after ${SERVICES_MS} ms: killed`);
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
  }
  for (const [signal, waitMs] of POSTGRES_STEPS) {
    if (!postgres || !postmasterRunning()) break;
    say(`stopping the embedded PostgreSQL ${postgres.pid} with ${signal}`);
    try { process.kill(postgres.pid, signal); } catch { break; }
    const until = Date.now() + waitMs;
    while (Date.now() < until && alive(postgres.pid, postgres.started)) await sleep(100);
  }
  if (Date.now() - began > 1000) say(`everything ended ${Date.now() - began} ms after the supervisor`);
  process.exit(0);
}

// Signals meant for the whole process group must not take the watchdog away first.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});

/**
 * @typedef {object} SupervisorMessage
 * @property {unknown[]} [services] the running services' pids
 * @property {{ pid?: unknown, dataDir?: unknown }} [postgres] the postmaster and its data directory
 */
process.on('message', (/** @type {SupervisorMessage | undefined} */ message) => {
  if (Array.isArray(message?.services)) {
    services = new Map(
      /** @type {Array<[number, string]>} */ (
        message.services.filter(Number.isInteger).map((pid) => [pid, startTime(/** @type {number} */ (pid))]).filter(([, started]) => started !== undefined)
      ),
    );
  }
  const announced = message?.postgres;
  if (announced && Number.isInteger(announced.pid) && typeof announced.dataDir === 'string') {
    const pid = /** @type {number} */ (announced.pid);
    const started = startTime(pid);
    if (started !== undefined) postgres = { pid, dataDir: announced.dataDir, started };
  }
});
process.on('disconnect', stopEverything);
setInterval(() => {
  if (process.ppid !== supervisorPid) stopEverything();
}, 1000);
