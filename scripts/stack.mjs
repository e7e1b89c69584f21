// @ts-check
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
//
// Its parts, by job, in stack/: output.mjs (our output and its going away), children.mjs (the
// service processes), embedded-postgres.mjs, watchdog.mjs (the link to stack-watchdog.cjs),
// secrets.mjs and net.mjs (ports and readiness probes).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Children } from './stack/children.mjs';
import { EmbeddedDatabase } from './stack/embedded-postgres.mjs';
import { httpOk, portIsFree, tcpOpen } from './stack/net.mjs';
import { watchOutput } from './stack/output.mjs';
import { loadSecrets } from './stack/secrets.mjs';
import { startWatchdog } from './stack/watchdog.mjs';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const require = createRequire(import.meta.url);
// PROPDESK_DATA_DIR: where the embedded PostgreSQL, its port and the generated secrets live.
const dataDir = path.resolve(root, process.env.PROPDESK_DATA_DIR || '.data');
const env = { ...process.env };
const { serviceNodeOptions } = /** @type {{ serviceNodeOptions(current?: string): string }} */ (require('./service-node.cjs'));
env.NODE_OPTIONS = serviceNodeOptions(env.NODE_OPTIONS);
// Milliseconds the services get, all together, to stop in order; the database gets what is left
// of SPEC's 20 s.
const SERVICES_STOP_MS = 14_000;
const DATABASE_STOP_MS = 3_000;
const STOP_ORDER = ['gateway', 'panel', 'market-feed', 'webhooks', 'accounts', 'auth'];

let stopping = false;
const isStopping = () => stopping;
const output = watchOutput(() => shutdown(0));
const { say, write } = output;
/** @type {import('./stack/watchdog.mjs').Watchdog | undefined} */
let watchdog;
const children = new Children({
  root,
  env,
  output,
  isStopping,
  giveUp: () => shutdown(1),
  onChange: (pids) => watchdog?.tell({ services: pids }),
});
/** @type {EmbeddedDatabase | undefined} */
let database;

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping: gateway, panel, feed, webhooks, accounts, auth, then the database');
  await children.stopInOrder(STOP_ORDER, Date.now() + SERVICES_STOP_MS);
  await database?.stop();
  write(process.stdout, 'PropDesk stopped\n');
  process.exit(code);
}

/** SIGINT (Ctrl-C), SIGTERM (start.mjs, a process manager) and SIGHUP (a closed terminal) stop the stack. */
function takeStopSignals() {
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
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

/**
 * Each component's port, defaults filled in (into env, which the services read): refused at once
 * when two components would share one (PORT=8090 is the panel's default), which would otherwise
 * surface as the later one failing to listen, restarted until the stack gives up.
 * @returns {Array<[string, number]>} the gateway's first
 */
function stackPorts() {
  env.AUTH_GRPC_PORT ??= '50051';
  env.ACCOUNTS_GRPC_PORT ??= '50052';
  env.WEBHOOKS_GRPC_PORT ??= '50053';
  env.PANEL_PORT ??= '8090';
  /** @type {Array<[string, string, string | undefined]>} */
  const named = [['gateway', 'PORT', env.PORT ?? '8080'], ['auth', 'AUTH_GRPC_PORT', env.AUTH_GRPC_PORT], ['accounts', 'ACCOUNTS_GRPC_PORT', env.ACCOUNTS_GRPC_PORT], ['webhooks', 'WEBHOOKS_GRPC_PORT', env.WEBHOOKS_GRPC_PORT], ['panel', 'PANEL_PORT', env.PANEL_PORT]];
  /** @type {Map<number, string>} */
  const taken = new Map();
  /** @type {Array<[string, number]>} */
  const ports = [];
  for (const [what, variable, value] of named) {
    const p = Number(value);
    if (!Number.isInteger(p) || p < 1 || p > 65535) throw new Error(`${variable}=${value} is not a port (1-65535)`);
    const other = taken.get(p);
    if (other) throw new Error(`${other} and ${variable} are both ${p}: give each component a port of its own`);
    taken.set(p, variable);
    ports.push([what, p]);
  }
  return ports;
}

async function main() {
  takeStopSignals();
  stopWithParent();
  // Started first, so that nothing this supervisor starts can outlive it (stack-watchdog.cjs).
  watchdog = startWatchdog(path.join(root, 'scripts', 'stack-watchdog.cjs'), { say, isStopping });
  loadSecrets(dataDir, env);
  const ports = stackPorts();
  const port = ports[0][1];
  if (!env.DATABASE_URL) {
    const tell = watchdog;
    database = new EmbeddedDatabase({
      root,
      dataDir,
      say,
      isStopping,
      takeStopSignals,
      tellWatchdog: (postgres) => tell.tell({ postgres }),
      stopMs: DATABASE_STOP_MS,
    });
    env.DATABASE_URL = await database.start();
  }
  if (!env.REDIS_URL) say('REDIS_URL is not set: rate limits are kept in process memory (per gateway process)');

  for (const [what, p] of ports) {
    if (!(await portIsFree(p))) throw new Error(`port ${p} for ${what} is in use (is another PropDesk running?)`);
  }
  const { createHealthChecker, loadGrpcTls } = /** @type {typeof import('@propdesk/kit')} */ (require(path.join(root, 'services/kit/dist/index.js')));
  // GRPC_TLS_*: the services ask for a client certificate, so the readiness checks present one too.
  const grpcTls = loadGrpcTls(env);
  /** @param {string} address */
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
    children.spawn(svc);
    await children.waitFor(svc.name, svc.ready);
  }
  const simulate = !['false', '0'].includes(String(env.SIMULATE_MARKET ?? 'true').toLowerCase());
  const feedEntry = 'services/market-feed/dist/main.js';
  if (simulate && fs.existsSync(path.join(root, feedEntry))) {
    children.spawn({ name: 'market-feed', entry: feedEntry });
  }
  children.spawn({ name: 'panel', entry: 'services/panel/dist/main.js' });
  await children.waitFor('panel', () => tcpOpen(Number(env.PANEL_PORT)));
  children.spawn({ name: 'gateway', entry: 'gateway/dist/main.js', env: { PORT: String(port) } });
  await children.waitFor('gateway', () => httpOk(`http://127.0.0.1:${port}/healthz`));
  write(process.stdout, `PropDesk ready on http://127.0.0.1:${port}\n`);
}

main().catch((err) => {
  if (!stopping) say(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
