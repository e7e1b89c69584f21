import {
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { service as healthServiceDefinition } from 'grpc-health-check';
import { currentContext, newRequestId, REQUEST_ID_METADATA, setActorMetadata, type Actor } from './context';
import { fromServiceError } from './errors';
import { installLeanAsyncResourceBind } from './async-resource-bind';
import { installHttp2SessionTables } from './http2-session-tables';
import { setIdempotencyMetadata, type IdempotentRequest } from './idempotency-metadata';
import { channelCredentialsOf, type GrpcTls } from './grpc-tls';
import { withTraceContext, type TraceContext } from './telemetry/tracing';

/** Channel options: per-request balancing over every address (headless Services), quick reconnects. */
export const CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.max_receive_message_length': 32 * 1024 * 1024,
  // HTTP/2 flow control: with the default 64 KB windows, a few dozen concurrent responses of
  // tens of KB (a page of accounts) share one connection window and the server waits for
  // WINDOW_UPDATEs between them; a larger window lets them through at once.
  'grpc-node.flow_control_window': 8 * 1024 * 1024,
  // Per-call bookkeeping we do not use on internal hops: channelz statistics.
  'grpc.enable_channelz': 0,
  // Transparent retries stay on (no retry policy: nothing the server has seen is sent again). A
  // replica that drains (SIGTERM: GOAWAY) refuses the streams that crossed its GOAWAY, and HTTP/2
  // guarantees those were not processed: grpc-js then sends the call to the other address instead
  // of failing it. Without this, a rolling restart costs an occasional 503
  // (test/faults/rolling-restart.test.ts).
  'grpc.enable_retries': 1,
};

export interface CallOpts {
  /** Milliseconds; every call has one. */
  deadlineMs?: number;
  requestId?: string;
  /** A write's Idempotency-Key, forwarded to the service that owns the effect (idempotency.ts). */
  idempotency?: IdempotentRequest;
  /** Who the call acts for (the audit log's actor); default: the request context's. */
  actor?: Actor;
  /** The client's address as the edge saw it; default: the request context's. */
  clientIp?: string;
  /**
   * The trace context the call's client span starts in, for a caller that carries it by hand
   * (the gateway: telemetry/tracing.ts TraceContext); default: the active one.
   */
  traceContext?: TraceContext;
}

type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** The unary methods of a generated client, as promise-returning functions that throw AppError. */
// `infer` matches the last overload of a generated method (request, metadata, options, callback);
// a plain `extends UnaryFn<never, never>` check fails on the callback's contravariance.
// Streaming methods' last overloads take fewer arguments, so they are told apart by arity.
type IsUnary<F> = F extends (...args: infer A) => unknown ? (A extends [unknown, unknown, unknown, unknown] ? true : false) : false;

export type PromiseClient<C> = {
  [K in keyof C as IsUnary<C[K]> extends true ? K : never]: C[K] extends UnaryFn<infer Req, infer Res>
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

export interface ServiceClient<C> {
  /** The raw generated client, for streaming calls. */
  raw: C;
  /** Unary calls with a deadline, x-request-id forwarded, errors as AppError. */
  call: PromiseClient<C>;
  close(): void;
}

export function callMetadata(requestId?: string, idempotency?: IdempotentRequest, actor?: Actor, clientIp?: string): Metadata {
  const metadata = new Metadata();
  const context = currentContext();
  metadata.set(REQUEST_ID_METADATA, requestId ?? context?.requestId ?? newRequestId());
  if (idempotency) setIdempotencyMetadata(metadata, idempotency);
  setActorMetadata(metadata, actor ?? context?.actor, clientIp ?? context?.ip);
  return metadata;
}

/**
 * Runs `work` with V8 capturing no stack frames. grpc-js makes an Error at the start of every
 * unary call to keep the caller's stack for a failure (a stack walk per call, answered or not),
 * and an error rebuilt from a service's status has no local stack worth having: the failure
 * happened in another process, and its API code and message are what the caller acts on.
 */
export function withoutStackTraces<T>(work: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return work();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Starts a unary call (`start` makes it) without stack traces, in `traced` when the caller carries
 * its trace context by hand (CallOpts.traceContext), so that the call's client span starts there.
 */
export function startCall(traced: TraceContext | undefined, start: () => unknown): void {
  withoutStackTraces(traced ? () => withTraceContext(traced, start) : start);
}

/**
 * Every call of a gRPC client is an HTTP/2 request: Node 20's per-request bind, made cheap
 * (async-resource-bind.ts), and stream tables that let a finished call's objects die young
 * (http2-session-tables.ts). Once per process, whichever client comes first.
 */
function prepareHttp2Calls(): void {
  installLeanAsyncResourceBind();
  installHttp2SessionTables();
}

/**
 * One client per service per process, created at boot. The generated client constructor
 * (e.g. AuthServiceClient) and its definition (AuthServiceService) come from proto/gen.
 */
export function createServiceClient<C extends Client>(
  ClientCtor: new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C,
  definition: ServiceDefinition,
  address: string,
  defaultDeadlineMs = 5000,
  /** mTLS (GRPC_TLS_*; ServiceAddresses.tls); plaintext when absent. */
  tls?: GrpcTls,
): ServiceClient<C> {
  prepareHttp2Calls();
  const raw = new ClientCtor(address, channelCredentialsOf(tls), CHANNEL_OPTIONS);
  const call: Record<string, (request: unknown, opts?: CallOpts) => Promise<unknown>> = {};
  for (const [name, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) continue;
    const fn = (raw as unknown as Record<string, UnaryFn<unknown, unknown>>)[name];
    call[name] = (request, opts) =>
      new Promise((resolve, reject) => {
        const metadata = callMetadata(opts?.requestId, opts?.idempotency, opts?.actor, opts?.clientIp);
        const options = { deadline: Date.now() + (opts?.deadlineMs ?? defaultDeadlineMs) };
        const start = () => fn.call(raw, request, metadata, options, (err, response) => (err ? reject(withoutStackTraces(() => fromServiceError(err))) : resolve(response)));
        startCall(opts?.traceContext, start);
      });
  }
  return { raw, call: call as unknown as PromiseClient<C>, close: () => raw.close() };
}

const HealthClient = makeGenericClientConstructor(healthServiceDefinition as unknown as ServiceDefinition, 'Health');

/** grpc.health.v1 Check against one address; resolves true only for SERVING. */
export function createHealthChecker(address: string, tls?: GrpcTls): { check(deadlineMs?: number): Promise<boolean>; close(): void } {
  prepareHttp2Calls();
  const client = new HealthClient(address, channelCredentialsOf(tls), CHANNEL_OPTIONS);
  return {
    check(deadlineMs = 1000) {
      return new Promise((resolve) => {
        (client as unknown as Record<string, UnaryFn<{ service: string }, { status: string | number }>>).check.call(
          client,
          { service: '' },
          callMetadata(),
          { deadline: Date.now() + deadlineMs },
          (err, response) => resolve(!err && (response.status === 'SERVING' || response.status === 1)),
        );
      });
    },
    close: () => client.close(),
  };
}
