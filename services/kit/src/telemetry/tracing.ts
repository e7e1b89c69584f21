import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

/**
 * What the rest of the kit asks of tracing. Everything here is a no-op until the SDK has been
 * started (register.ts, only with OTEL_EXPORTER_OTLP_* set), so with tracing off a request pays
 * one boolean check per call site and nothing else.
 */
export interface TracingHooks {
  /** The HTTP server span of the request in `context` (http instrumentation's RPC metadata). */
  serverSpan(context: Context): Span | undefined;
  /** Names the HTTP server span in `context` by its route template: http.route and "METHOD /v1/x/{id}". */
  setHttpRoute(method: string, template: string, context: Context): void;
  /** Flushes spans still batched (shutdown). */
  flush(): Promise<void>;
}

let hooks: TracingHooks | undefined;
let ownTracer: Tracer | undefined;

/** The tracer of PropDesk's own spans, looked up once. */
function tracer(): Tracer {
  ownTracer ??= trace.getTracer('propdesk');
  return ownTracer;
}

/** Called once by the SDK when it starts (sdk.ts). */
export function installTracingHooks(installed: TracingHooks): void {
  hooks = installed;
  ownTracer = undefined;
}

/** True once this process exports spans. */
export function tracingActive(): boolean {
  return hooks !== undefined;
}

/**
 * A request's trace context, for a process that carries it by hand rather than through
 * AsyncLocalStorage (the gateway: synchronous-context.ts). Taken where the request starts
 * (captureTraceContext), kept with the request, and entered around each call that may start a
 * span or write a log line after an await (withTraceContext; a gRPC call's CallOpts.traceContext).
 */
export type TraceContext = Context;

/** The active trace context; undefined with tracing off. */
export function captureTraceContext(): TraceContext | undefined {
  return hooks ? context.active() : undefined;
}

/** Runs `fn` with `traced` as the active context; with tracing off or no context, just runs it. */
export function withTraceContext<T>(traced: TraceContext | undefined, fn: () => T): T {
  return hooks && traced ? context.with(traced, fn) : fn();
}

/** Writes `traced`'s W3C trace context (traceparent, tracestate) into outgoing headers. */
export function injectTraceContext(traced: TraceContext | undefined, setHeader: (name: string, value: string) => void): void {
  if (!hooks || !traced) return;
  const carrier: Record<string, string> = {};
  propagation.inject(traced, carrier);
  for (const [name, value] of Object.entries(carrier)) setHeader(name, value);
}

/** Span attributes of our own, beside the semantic conventions' (never a secret or a body). */
export const ATTR_REQUEST_ID = 'propdesk.request_id';
export const ATTR_ORGANIZATION_ID = 'propdesk.organization_id';

/** Sets attributes on the active span (a gRPC handler's server span, for instance). */
export function annotateActiveSpan(attributes: Attributes): void {
  if (!hooks) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Sets attributes on the request's HTTP server span (the gateway's and the panel's): the one in `traced`, else the active one. */
export function annotateServerSpan(attributes: Attributes, traced?: TraceContext): void {
  if (!hooks) return;
  const current = traced ?? context.active();
  (hooks.serverSpan(current) ?? trace.getSpan(current))?.setAttributes(attributes);
}

/** The gateway's /v1 router matched a route template: the server span (in `traced`, else the active one) is named after it. */
export function setHttpRoute(method: string, template: string, traced?: TraceContext): void {
  hooks?.setHttpRoute(method, template, traced ?? context.active());
}

/** W3C trace context of the current span, as stored beside an outbox row. */
export interface StoredTraceContext {
  traceparent: string;
  tracestate: string;
}

/** The trace context of `traced`, else the active one (to keep with something that is handled later), or null when none is sampled. */
export function currentTraceContext(traced?: TraceContext): StoredTraceContext | null {
  if (!hooks) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(traced ?? context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate ?? '' } : null;
}

function isStored(parent: StoredTraceContext | TraceContext): parent is StoredTraceContext {
  return typeof (parent as StoredTraceContext).traceparent === 'string';
}

/**
 * Runs `work` inside a new span whose parent is a stored trace context (an outbox event's), so
 * what happens now joins the trace of what caused it, or a trace context at hand (a request's,
 * TraceContext: used as it is, not written out and parsed back). Without either the span starts
 * a trace of its own; with tracing off, `work` just runs. The span ends when `work` settles, in
 * error when it throws; `work` may set the outcome on the span it is given.
 */
export async function inSpanOf<T>(
  from: StoredTraceContext | TraceContext | null | undefined,
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!hooks) return work(undefined);
  const parent = !from ? ROOT_CONTEXT : isStored(from) ? propagation.extract(ROOT_CONTEXT, { traceparent: from.traceparent, tracestate: from.tracestate }) : from;
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/** The gateway's list requests travel as messages of this method's long-lived calls. */
export const STREAM_LIST_ACCOUNTS_PATH = '/propdesk.accounts.v1.AccountsService/StreamListAccounts';

/**
 * The spans of one StreamListAccounts message, the gateway's (client) and the accounts service's
 * (server): the message carries the trace context that a call carries in its metadata.
 */
export const STREAM_LIST_SPAN = STREAM_LIST_ACCOUNTS_PATH.slice(1);
export const STREAM_LIST_ATTRIBUTES: Attributes = { 'rpc.system': 'grpc', 'rpc.service': 'propdesk.accounts.v1.AccountsService', 'rpc.method': 'StreamListAccounts' };

/** Sends what is batched; resolves at once with tracing off, and within `timeoutMs` whatever the collector does. */
export async function flushTelemetry(timeoutMs = 2000): Promise<void> {
  if (!hooks) return;
  await Promise.race([hooks.flush().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
}

export { SpanKind, SpanStatusCode };
