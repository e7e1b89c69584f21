import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { ProtobufWriter } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-writer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { installNativeOtlpStringWrites, NATIVE_FROM } from './otlp-string-writes';

/** A deterministic generator (mulberry32): the same corpus on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One byte, two, three and four in UTF-8 (a surrogate pair), and lone surrogates of both halves. */
const PIECES = ['a', 'Z', '7', ' ', '_', 'é', 'ß', '€', '中', '😀', '\ud83d', '\ude00'];

function text(next: () => number, length: number, ascii: boolean): string {
  let out = '';
  while (out.length < length) out += ascii ? String.fromCharCode(32 + Math.floor(next() * 95)) : PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

/** Lengths on both sides of the native path's threshold, and far beyond it. */
function length(next: () => number): number {
  const lengths = [0, 1, 5, NATIVE_FROM - 1, NATIVE_FROM, NATIVE_FROM + 1, 200, 2_300, 20_000];
  return next() < 0.5 ? lengths[Math.floor(next() * lengths.length)] : Math.floor(next() * 400);
}

/** Spans of a real tracer with strings of every kind in their names, attributes, events, links and status. */
function corpus(count: number): ReadableSpan[] {
  const next = random(20261128);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'propdesk-test', 'service.instance.id': text(next, 120, true) }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('propdesk-test', '1.0.0');
  const string = () => text(next, length(next), next() < 0.5);
  for (let i = 0; i < count; i += 1) {
    const attributes: Attributes = { 'db.query.text': string(), 'url.path': string(), [string() || 'key']: string(), 'server.port': 5432, list: [string(), string()] };
    const span = tracer.startSpan(string() || 'span', { kind: SpanKind.CLIENT, attributes });
    span.addEvent(string() || 'event', { detail: string() });
    span.addLink({ context: span.spanContext(), attributes: { reason: string() } });
    span.setStatus({ code: SpanStatusCode.ERROR, message: string() });
    span.end();
  }
  return exporter.getFinishedSpans();
}

describe('installNativeOtlpStringWrites', () => {
  it('writes export requests the same, byte for byte, as the exporter does on its own', () => {
    const spans = corpus(150);
    const batches = [spans.slice(0, 1), spans.slice(1, 40), spans];
    const own = batches.map((batch) => Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!));
    const ownWrite = ProtobufWriter.prototype.writeString;

    expect(installNativeOtlpStringWrites()).toBe(true);
    expect(ProtobufWriter.prototype.writeString).not.toBe(ownWrite);
    const native = batches.map((batch) => Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!));

    for (const [i, bytes] of native.entries()) {
      expect(bytes.length).toBe(own[i].length);
      expect(bytes.equals(own[i])).toBe(true);
    }
    // The corpus did reach the native path: strings of the threshold's length and longer.
    const longest = Math.max(...spans.map((span) => String(span.attributes['db.query.text']).length));
    expect(longest).toBeGreaterThanOrEqual(20_000);
  });

  it('follows the writer onto a new buffer when it grows, and installs once', () => {
    expect(installNativeOtlpStringWrites()).toBe(true);
    const installed = ProtobufWriter.prototype.writeString;
    expect(installNativeOtlpStringWrites()).toBe(true);
    expect(ProtobufWriter.prototype.writeString).toBe(installed);

    // A writer sized for 16 bytes that is given 200 KB: it grows several times mid-way.
    const next = random(7);
    const strings = Array.from({ length: 60 }, (_, i) => text(next, i % 3 === 0 ? 10 : NATIVE_FROM + i * 50, i % 2 === 0));
    const writer = new ProtobufWriter(16);
    for (const s of strings) writer.writeString(s);
    const expected = Buffer.concat(strings.map((s) => {
      const bytes = Buffer.from(s, 'utf8');
      return Buffer.concat([varint(bytes.length), bytes]);
    }));
    expect(Buffer.from(writer.finish()).equals(expected)).toBe(true);
  });
});

function varint(value: number): Buffer {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}
