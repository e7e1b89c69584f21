/**
 * A closed-loop HTTP/1.1 load generator for the gateway bench: `connections` keep-alive sockets,
 * each sending its next request as soon as the previous answer is read to its end, for
 * `durationSec`. Latency is timed with hrtime to the hundredth of a millisecond: autocannon's
 * histogram counts whole milliseconds, which at one client (answers of 1-2 ms) makes a p99 ratio
 * of 2 ms against 3 ms out of a 0.3 ms difference. Each request is a prebuilt buffer (or, for
 * writes, built from a per-request body), so the loop costs little next to the servers.
 *
 * Run as its own process (load.ts pins it to the last core): argv[2] is the JSON of LoadSpec, the
 * result (LoadSummary) is printed on stdout.
 */
import net from 'node:net';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  connections: number;
  durationSec: number;
  /**
   * POST /v1/traders with a new trader each: 'plain' sends no Idempotency-Key, 'keyed' a fresh
   * one per request. Absent: the same request every time.
   */
  traders?: 'plain' | 'keyed';
}

export interface LoadSummary {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

function requestBytes(spec: LoadSpec, url: URL, n: number): Buffer {
  const headers: Record<string, string> = { host: url.host, ...spec.headers };
  let body = '';
  if (spec.traders !== undefined) {
    const id = `${process.pid}-${n}-${Math.random().toString(36).slice(2)}`;
    body = JSON.stringify({ name: 'Bench Trader', email: `bench-${id}@example.com` });
    headers['content-type'] = 'application/json';
    if (spec.traders === 'keyed') headers['idempotency-key'] = `bench-${id}`;
  }
  if (spec.method !== 'GET') headers['content-length'] = String(Buffer.byteLength(body));
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.from(`${spec.method} ${url.pathname}${url.search} HTTP/1.1\r\n${head}\r\n${body}`);
}

/** Bytes of a whole answer at the start of `buf` (status, length), or undefined while incomplete. */
function answer(buf: Buffer): { status: number; length: number } | undefined {
  const headerEnd = buf.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = buf.subarray(0, headerEnd).toString('latin1');
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const total = headerEnd + 4 + Number(length[1]);
    return buf.length >= total ? { status, length: total } : undefined;
  }
  // Chunked: the answer ends with the last, empty chunk.
  const end = buf.indexOf('\r\n0\r\n\r\n', headerEnd);
  return end < 0 ? undefined : { status, length: end + 7 };
}

export async function runLoad(spec: LoadSpec): Promise<LoadSummary> {
  const url = new URL(spec.url);
  const fixed = spec.traders === undefined ? requestBytes(spec, url, 0) : undefined;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const end = started + spec.durationSec * 1000;
  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port) });
      socket.setNoDelay(true);
      let pending = Buffer.alloc(0);
      let sentAt = 0n;
      const send = () => {
        if (performance.now() >= end) {
          socket.end();
          return;
        }
        n += 1;
        sentAt = process.hrtime.bigint();
        socket.write(fixed ?? requestBytes(spec, url, n));
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const done = answer(pending);
        if (done === undefined) return;
        latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
        if (done.status < 200 || done.status > 299) non2xx += 1;
        pending = pending.subarray(done.length);
        send();
      });
      socket.on('error', () => {
        errors += 1;
        socket.destroy();
      });
      socket.on('close', () => resolve());
    });
  await Promise.all(Array.from({ length: spec.connections }, connection));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 100) / 100;
  return { requests: latencies.length, seconds, p50: at(0.5), p99: at(0.99), non2xx, errors };
}

if (require.main === module) {
  runLoad(JSON.parse(process.argv[2]) as LoadSpec).then(
    (summary) => process.stdout.write(`${JSON.stringify(summary)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
