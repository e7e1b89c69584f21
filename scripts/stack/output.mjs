// @ts-check
// The supervisor's output: stdout carries only the ready and stopped lines, stderr our notes and
// every child's log. When its reader goes away (a closed pipe or terminal), a write fails with
// EPIPE or EIO: from then on the output is dropped and the stack stops in order, instead of this
// process dying on an unhandled error halfway and leaving its children behind.

/**
 * @typedef {object} Output
 * @property {(stream: NodeJS.WriteStream, text: string | Uint8Array) => void} write
 *   Writes unless the output is gone.
 * @property {(msg: string) => void} say A note of the supervisor's on stderr.
 */

/**
 * Watches stdout and stderr from now on; `onGone` runs once, when the first of them fails.
 * @param {() => void} onGone
 * @returns {Output}
 */
export function watchOutput(onGone) {
  let gone = false;
  const lost = () => {
    if (gone) return;
    gone = true;
    onGone();
  };
  process.stdout.on('error', lost);
  process.stderr.on('error', lost);
  /** @type {Output['write']} */
  const write = (stream, text) => {
    if (gone) return;
    try { stream.write(text); } catch { lost(); }
  };
  return { write, say: (msg) => write(process.stderr, `[propdesk] ${msg}\n`) };
}
