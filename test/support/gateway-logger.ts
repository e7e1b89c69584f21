import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger, type Logger } from '@propdesk/kit';

/** What the gateway logs once auth's invalidation stream feeds its key cache (invalidation-watcher.ts). */
const CACHE_ENABLED = 'invalidation stream connected: key cache enabled';

/**
 * A gateway's logger for the harness: it passes on the lines at `level` and above to `destination`
 * (stdout when absent) as a plain logger would, and resolves `cacheEnabled` on the gateway's own
 * line saying that its key cache is in use, which it reads at info whatever `level` is.
 */
export function gatewayLogger(level: string, destination?: Writable): { logger: Logger; cacheEnabled: Promise<void> } {
  const shown = pino.levels.values[level] ?? Number.POSITIVE_INFINITY;
  const out = destination ?? process.stdout;
  let enabled: () => void = () => undefined;
  const cacheEnabled = new Promise<void>((resolve) => (enabled = resolve));
  const tap = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        const entry = JSON.parse(line) as { level: number; msg?: string };
        if (entry.msg === CACHE_ENABLED) enabled();
        if (entry.level >= shown) out.write(`${line}\n`);
      }
      done();
    },
  });
  return { logger: createLogger('gateway', { level: shown < pino.levels.values.info ? level : 'info', destination: tap }), cacheEnabled };
}
