// @ts-check
// The stack's service processes: started with the product's Node flags and the net under them
// (end-with-supervisor.cjs), their output relayed to our stderr, restarted when they die
// unexpectedly (a few times, then the stack gives up; never one whose configuration is wrong),
// and stopped one by one in a given order.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { NODE_FLAGS } = /** @type {{ NODE_FLAGS: string[] }} */ (require('../service-node.cjs'));
/** A service's exit code when its configuration is wrong (the kit's EXIT_CONFIG): never restarted. */
const EXIT_CONFIG = 78;

/**
 * @typedef {object} ChildSpec
 * @property {string} name
 * @property {string} entry its compiled main, relative to the repository
 * @property {Record<string, string>} [env] on top of the stack's environment
 *
 * @typedef {object} ChildRecord
 * @property {ChildSpec} spec
 * @property {import('node:child_process').ChildProcess} child
 * @property {number[]} restarts when it was restarted within the last minute
 *
 * @typedef {object} ChildrenOptions
 * @property {string} root the repository
 * @property {NodeJS.ProcessEnv} env the stack's environment
 * @property {import('./output.mjs').Output} output
 * @property {() => boolean} isStopping
 * @property {() => void} giveUp a child keeps failing: stop the stack
 * @property {(pids: number[]) => void} onChange the running children's pids, whenever they change
 */

/**
 * Resolves true once the child has exited, false if it is still running after ms.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} ms
 * @returns {Promise<boolean>}
 */
export function exited(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    child.once('exit', () => { clearTimeout(timer); resolve(true); });
  });
}

/** @param {ChildRecord | undefined} record @returns {record is ChildRecord} */
const running = (record) => record !== undefined && record.child.exitCode === null && record.child.signalCode === null;

export class Children {
  /** @param {ChildrenOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Map<string, ChildRecord>} by name */
    this.records = new Map();
    this.endWithSupervisor = path.join(options.root, 'scripts', 'end-with-supervisor.cjs');
  }

  reportPids() {
    this.options.onChange([...this.records.values()].filter(running).map((r) => /** @type {number} */ (r.child.pid)));
  }

  /** @param {ChildSpec} spec */
  spawn(spec) {
    const { root, env, output, isStopping } = this.options;
    const child = spawn(process.execPath, [...NODE_FLAGS, '--require', this.endWithSupervisor, path.join(root, spec.entry)], {
      env: { ...env, ...spec.env, PROPDESK_SUPERVISOR_PID: String(process.pid) },
      // The IPC channel is how the child learns at once that this supervisor is gone.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // Children's logs go to stderr, so stdout carries only the ready line. Their pipes are read
    // even once our output is gone: a child blocked on a full pipe could not stop.
    /** @param {Buffer} chunk */
    const relay = (chunk) => output.write(process.stderr, chunk);
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    child.on('error', (err) => output.say(`${spec.name}: ${err.message}`));
    /** @type {ChildRecord} */
    const record = { spec, child, restarts: this.records.get(spec.name)?.restarts ?? [] };
    this.records.set(spec.name, record);
    this.reportPids();
    child.on('exit', (code, signal) => {
      this.reportPids();
      if (isStopping()) return;
      if (code === EXIT_CONFIG) {
        // The same configuration would fail the same way: its own line above says which variable.
        output.say(`${spec.name} cannot start with this configuration: stopping the stack`);
        this.options.giveUp();
        return;
      }
      output.say(`${spec.name} exited unexpectedly (code ${code}, signal ${signal})`);
      const now = Date.now();
      record.restarts = record.restarts.filter((t) => now - t < 60_000);
      if (record.restarts.length >= 5) {
        output.say(`${spec.name} keeps failing: stopping the stack`);
        this.options.giveUp();
        return;
      }
      record.restarts.push(now);
      const delay = 500 * 2 ** (record.restarts.length - 1);
      output.say(`restarting ${spec.name} in ${delay} ms`);
      setTimeout(() => { if (!isStopping()) this.spawn(spec); }, delay);
    });
    return child;
  }

  /**
   * Polls `check` until it answers true; fails when the stack stops, when the child exits during
   * its first start, or after timeoutMs.
   * @param {string} name
   * @param {() => Promise<boolean>} check
   */
  async waitFor(name, check, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.options.isStopping()) throw new Error('stopping');
      const record = this.records.get(name);
      if (record && record.child.exitCode !== null && record.restarts.length === 0) {
        throw new Error(`${name} exited during start (code ${record.child.exitCode})`);
      }
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${name} did not become ready within ${timeoutMs / 1000} s`);
  }

  /**
   * SIGTERM to each in turn, waiting for it to exit before the next, until `deadline`; whatever
   * has not stopped by then is killed, so the database can still stop in time.
   * @param {string[]} order
   * @param {number} deadline
   */
  async stopInOrder(order, deadline) {
    for (const name of order) {
      const record = this.records.get(name);
      if (!running(record)) continue;
      record.child.kill('SIGTERM');
      if (!(await exited(record.child, deadline - Date.now()))) break;
    }
    const late = [...this.records.values()].filter(running);
    for (const record of late) {
      this.options.output.say(`${record.spec.name} did not stop in time: killing it`);
      record.child.kill('SIGKILL');
    }
    await Promise.all(late.map((record) => exited(record.child, 1000)));
  }
}
