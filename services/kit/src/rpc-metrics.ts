import { ServerInterceptingCall, status as grpcStatus, type ServerInterceptingCallInterface, type ServerInterceptor, type ServerListener } from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';
import { STREAM_LIST_ACCOUNTS_PATH } from './telemetry/tracing';

/** Seconds: from a cached key check (sub-millisecond) to a report of a large account. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const LABELS = ['rpc_system', 'rpc_service', 'rpc_method', 'rpc_grpc_status_code'] as const;

/**
 * Every call a gRPC server answers, counted and timed by service, method and status code (the
 * OpenTelemetry RPC conventions' attributes, Prometheus-style names): one interceptor in the
 * kit's server bootstrap, so a new RPC is measured without a line of its own. A streaming call
 * is observed when it ends. Metrics are registered on the service's own registry (its
 * *_METRICS_PORT /metrics); two servers in one process (tests) get one registry each.
 * `listener`: what else the server listens for on every call (grpc-server.ts refuses undecodable
 * requests), in this same intercepting call: each interceptor is a layer every message and
 * status of every call passes through.
 */
function rpcMetrics(registry: Registry): { calls: Counter<(typeof LABELS)[number]>; duration: Histogram<(typeof LABELS)[number]> } {
  const calls =
    (registry.getSingleMetric('rpc_server_requests_total') as Counter<(typeof LABELS)[number]> | undefined) ??
    new Counter({ name: 'rpc_server_requests_total', help: 'gRPC calls answered, by service, method and status code', labelNames: LABELS, registers: [registry] });
  const duration =
    (registry.getSingleMetric('rpc_server_duration_seconds') as Histogram<(typeof LABELS)[number]> | undefined) ??
    new Histogram({
      name: 'rpc_server_duration_seconds',
      help: 'gRPC call duration from its start to its status, by service, method and status code',
      labelNames: LABELS,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  return { calls, duration };
}

/**
 * Methods whose messages are the requests (AccountsService.StreamListAccounts: one long-lived call
 * carries the gateway's list requests): each answered message is counted and timed as a call of
 * the method (rpcMessageObserver), and the call itself, which lasts for many of them, is not.
 */
const OBSERVED_PER_MESSAGE = new Set([STREAM_LIST_ACCOUNTS_PATH]);

/** Counts and times one call (or message) of the method at `path` (/propdesk.accounts.v1.AccountsService/AssignTrader). */
function observerOf(metrics: ReturnType<typeof rpcMetrics>, path: string): (code: number, startedNs: bigint) => void {
  const slash = path.lastIndexOf('/');
  const service = path.slice(1, slash);
  const method = path.slice(slash + 1);
  return (code, startedNs) => {
    const labels = { rpc_system: 'grpc', rpc_service: service, rpc_method: method, rpc_grpc_status_code: String(code) };
    metrics.calls.inc(labels);
    metrics.duration.observe(labels, Number(process.hrtime.bigint() - startedNs) / 1e9);
  };
}

/** Counts and times one answered message of an OBSERVED_PER_MESSAGE method, as rpcMetricsInterceptor a call. */
export function rpcMessageObserver(registry: Registry, path: string): (code: number, startedNs: bigint) => void {
  return observerOf(rpcMetrics(registry), path);
}

export function rpcMetricsInterceptor(registry: Registry, listener?: (call: ServerInterceptingCallInterface) => Partial<ServerListener>): ServerInterceptor {
  const metrics = rpcMetrics(registry);
  // One recorder per method, made at its first call (not a path parsed and a closure made per call).
  const recorders = new Map<string, ReturnType<typeof observerOf>>();
  return (descriptor, call) => {
    const started = process.hrtime.bigint();
    let record = recorders.get(descriptor.path);
    if (!record) {
      record = observerOf(metrics, descriptor.path);
      recorders.set(descriptor.path, record);
    }
    let observed = OBSERVED_PER_MESSAGE.has(descriptor.path);
    const observe = (code: number) => {
      if (observed) return;
      observed = true;
      record(code, started);
    };
    return new ServerInterceptingCall(call, {
      start(next) {
        next({
          ...listener?.(call),
          onCancel() {
            observe(grpcStatus.CANCELLED);
          },
        });
      },
      sendStatus(status, next) {
        observe(status.code);
        next(status);
      },
    });
  };
}
