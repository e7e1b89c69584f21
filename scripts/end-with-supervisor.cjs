// Preloaded (`node --require`) into every service process the stack supervisor (stack.mjs)
// starts. When the supervisor is gone — SIGKILLed, crashed — this process stops on its own, so
// that no PropDesk process outlives its stack holding a port (SPEC 3, "Stopping"). It is the
// supervisor's job to stop its children in order; this is only the net under it.
//
// The supervisor is gone when the IPC channel it opened to us closes (noticed at once), when
// this process is re-parented (checked every second: the net holds without a channel too), or
// when our output fails (only the supervisor reads it). Then we send ourselves SIGTERM, so the
// service drains as on any stop, and exit regardless after HARD_EXIT_MS.
// @ts-check
'use strict';

const fs = require('node:fs');

const supervisorPid = Number(process.env.PROPDESK_SUPERVISOR_PID);
// Detection takes at most a second; the stack watchdog kills whatever is left after 13 s and
// then stops the embedded PostgreSQL: all within SPEC's 20 s.
const HARD_EXIT_MS = 12_000;

if (supervisorPid > 0) {
  let gone = false;
  const supervisorGone = () => {
    if (gone) return;
    gone = true;
    setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
    process.kill(process.pid, 'SIGTERM');
  };

  // Nobody reads our output any more: drop it instead of dying on EPIPE in the middle of the drain.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', supervisorGone);

  // The same for synchronous writes to fds 1 and 2. pino's destination (sonic-boom 4) flushes
  // its buffer with fs.writeSync when the process exits, and retries a write that failed with
  // anything but EAGAIN every 100 ms, forever: with the reader gone, a service whose last log
  // lines were still buffered would hang in its exit (sonic-boom 5 throws instead; pino 9 pins 4).
  const writeSync = /** @type {(this: unknown, fd: number, data: WriteSyncData, ...rest: unknown[]) => number} */ (fs.writeSync);
  fs.writeSync = /** @type {typeof fs.writeSync} */ (
    /**
     * @this {unknown}
     * @param {number} fd
     * @param {WriteSyncData} data
     * @param {unknown[]} rest
     */
    function writeSyncToSupervisor(fd, data, ...rest) {
      try {
        return writeSync.call(this, fd, data, ...rest);
      } catch (err) {
        if ((fd !== 1 && fd !== 2) || /** @type {NodeJS.ErrnoException | undefined} */ (err)?.code !== 'EPIPE') throw err;
        supervisorGone();
        return byteCount(data, rest);
      }
    }
  );

  if (process.channel) {
    process.on('disconnect', supervisorGone);
    // The channel must not keep a stopped service alive.
    process.channel.unref();
  }
  const check = setInterval(() => {
    if (process.ppid !== supervisorPid) supervisorGone();
  }, 1000);
  check.unref();
  if (process.ppid !== supervisorPid) setImmediate(supervisorGone);
}

/** @typedef {string | NodeJS.ArrayBufferView} WriteSyncData what fs.writeSync writes */

/**
 * How many bytes fs.writeSync(fd, data, ...rest) was asked to write.
 * @param {WriteSyncData} data
 * @param {unknown[]} rest
 * @returns {number}
 */
function byteCount(data, rest) {
  if (typeof data === 'string') return Buffer.byteLength(data, /** @type {BufferEncoding | undefined} */ (rest.find((a) => typeof a === 'string')) ?? 'utf8');
  const options = /** @type {{ offset?: number, length?: number }} */ (rest[0] !== null && typeof rest[0] === 'object' ? rest[0] : { offset: rest[0], length: rest[1] });
  return options.length ?? data.byteLength - (options.offset ?? 0);
}
