/**
 * The OTLP/protobuf exporter (@opentelemetry/otlp-transformer) sizes every string of a span with a
 * loop over its characters, then writes it with a second loop, one byte at a time. A PostgreSQL
 * span's `db.query.text` is the statement: the account list's is 2.3 KB, and each list message has
 * about two such spans. Measured on its own, writing that string took 16-24 µs and sizing it
 * 6-11 µs; Node's native UTF-8 writer does both in about 2 µs. One traced message (its server span
 * and a PostgreSQL span with that statement) went from about 72 to 36 µs of CPU, export included.
 *
 * This gives the exporter's writer and size estimator a native path for strings of 64 characters
 * and more (shorter ones are faster in the exporter's own loop: the native call has a fixed price
 * of about 0.2 µs). The bytes written are the same, byte for byte: both are UTF-8, with U+FFFD for
 * a lone surrogate (otlp-string-writes.test.ts compares whole export requests). The estimator then
 * gives the exact size where the exporter's own estimate could be off for a lone surrogate, which
 * only spares the writer a buffer it would have had to grow.
 *
 * Feature-checked: the two classes are looked up in the exporter's own modules, and a version whose
 * writer does not keep its bytes and position as this expects keeps its own writeString. Once per
 * process; a no-op when the modules are not there.
 */
export function installNativeOtlpStringWrites(): boolean {
  const writer = exporterClass<WriterShape>('protobuf-writer', 'ProtobufWriter');
  if (writer && (writer.prototype as WriterShape & Record<symbol, unknown>)[INSTALLED]) return true;
  const estimator = exporterClass<EstimatorShape>('protobuf-size-estimator', 'ProtobufSizeEstimator');
  if (!writer || !estimator || !writesAsExpected(writer) || typeof estimator.prototype.writeString !== 'function') return false;
  const writerProto = writer.prototype;

  const ownWrite = writerProto.writeString;
  Object.defineProperty(writerProto, INSTALLED, { value: true });
  writerProto.writeString = function writeString(this: WriterShape, text: string): void {
    if (text.length < NATIVE_FROM) return ownWrite.call(this, text);
    const length = Buffer.byteLength(text, 'utf8');
    this.writeVarint(length);
    this._ensureCapacity(length);
    // A view of the writer's current buffer (it replaces it when it grows), made per string: kept
    // on the writer, it would change the writer's shape mid-request and slow its other methods.
    const bytes = this._buffer;
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).write(text, this.pos, length, 'utf8');
    this.pos += length;
  };

  const ownSize = estimator.prototype.writeString;
  estimator.prototype.writeString = function writeString(this: EstimatorShape, text: string): void {
    if (text.length < NATIVE_FROM) return ownSize.call(this, text);
    const length = Buffer.byteLength(text, 'utf8');
    this.writeVarint(length);
    this.pos += length;
  };
  return true;
}

/** From this length on a string goes through Node's native UTF-8 code (measured crossover: 48-64). */
export const NATIVE_FROM = 64;

const INSTALLED = Symbol.for('propdesk.otlpNativeStringWrites');

interface WriterShape {
  pos: number;
  _buffer: Uint8Array;
  _ensureCapacity(size: number): void;
  writeVarint(value: number): void;
  writeString(text: string): void;
  finish(): Uint8Array;
}

interface EstimatorShape {
  pos: number;
  writeVarint(value: number): void;
  writeString(text: string): void;
}

/** The exporter's class `name` from its module `file`, or undefined where this version has none. */
function exporterClass<T>(file: string, name: string): { prototype: T; new (size?: number): T } | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(`@opentelemetry/otlp-transformer/build/src/common/protobuf/${file}`) as Record<string, unknown>;
    const found = loaded[name];
    return typeof found === 'function' ? (found as { prototype: T; new (size?: number): T }) : undefined;
  } catch {
    return undefined;
  }
}

/** A writer that keeps its bytes in `_buffer` up to `pos`, grows with `_ensureCapacity`, and writes a string as this does. */
function writesAsExpected(writer: { prototype: WriterShape; new (size?: number): WriterShape }): boolean {
  const proto = writer.prototype;
  if (typeof proto.writeString !== 'function' || typeof proto._ensureCapacity !== 'function' || typeof proto.writeVarint !== 'function') return false;
  try {
    const probe = new writer(8);
    probe.writeString('é');
    return probe._buffer instanceof Uint8Array && probe.pos === 3 && Buffer.from(probe.finish()).equals(Buffer.from([2, 0xc3, 0xa9]));
  } catch {
    return false;
  }
}
