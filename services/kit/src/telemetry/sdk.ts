import type { IncomingMessage } from 'node:http';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { Context, Span } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation, type PgRequestHookInformation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { PREPARED_NAME_PREFIX } from '../statements';
import type { TelemetrySettings } from './config';
import { installNativeOtlpStringWrites } from './otlp-string-writes';
import { SynchronousContextManager } from './synchronous-context';
import { installTracingHooks } from './tracing';

/** Probes and scrapes: answered every few seconds, never what a trace is looked at for. */
const UNTRACED_PATHS = ['/healthz', '/metrics'];

/** Asked of every request: a prefix test, no string made (most requests are under /v1). */
function untracedRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return UNTRACED_PATHS.some((path) => url.startsWith(path) && (url.length === path.length || url[path.length] === '?'));
}

/** A webhook URL's query string may hold the receiver's own token: spans keep scheme, host and path. */
function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

/**
 * The kit prepares every statement under a name made of its hash (statements.ts,
 * PREPARED_NAME_PREFIX), and the pg instrumentation names a prepared statement's span after that
 * name: a trace would show `pg.query:pd_9a2b708df7aea6bf8e03426c propdesk` six times over. Such a
 * span is named as the instrumentation names an unnamed statement, by its command
 * (`pg.query:SELECT propdesk`); the name stays in `db.postgresql.plan`, the statement in
 * `db.query.text`.
 */
function nameStatementSpan(span: Span, info: PgRequestHookInformation): void {
  const { name, text } = info.query;
  if (typeof name !== 'string' || !name.startsWith(PREPARED_NAME_PREFIX) || typeof text !== 'string') return;
  const statement = text.trimStart();
  const space = statement.search(/\s/);
  const command = (space === -1 ? statement : statement.slice(0, space)).replace(/;$/, '').toUpperCase();
  span.updateName(`pg.query:${command}${info.connection.database ? ` ${info.connection.database}` : ''}`);
}

export interface SdkOptions {
  /**
   * Express's instrumentation (default on). Off where Express routes nothing itself: it names
   * no span there and would still run for every layer of every request.
   */
  express?: boolean;
  /**
   * Context through AsyncLocalStorage (default on). Off: a context manager that follows only
   * synchronous calls (synchronous-context.ts), for a process that carries its requests' context
   * itself; its outgoing HTTP requests are traced only under a parent, so that the exporter's own,
   * sent after awaits that no context follows, never is.
   */
  asyncContext?: boolean;
}

/**
 * The batch processor's sizes where OTEL_BSP_* leaves them unset: batches of up to 2,048 spans in
 * a queue of 8,192 (the SDK's 512 and 2,048 mean an export request every few hundred requests under
 * load, and spans dropped in a burst). The variables still win (the processor reads them for any
 * size not given here), and the schedule stays the SDK's.
 */
function batchSizes(env: NodeJS.ProcessEnv): { maxExportBatchSize?: number; maxQueueSize?: number } {
  return {
    ...(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ? {} : { maxExportBatchSize: 2048 }),
    ...(env.OTEL_BSP_MAX_QUEUE_SIZE ? {} : { maxQueueSize: 8192 }),
  };
}

/** The OTLP/protobuf exporter, its long strings (a PostgreSQL span's statement) written natively: same bytes, a fraction of the CPU. */
function protobufExporter(): OtlpProtobufExporter {
  installNativeOtlpStringWrites();
  return new OtlpProtobufExporter();
}

/**
 * Starts the OpenTelemetry SDK: a NodeTracerProvider (W3C trace context, AsyncLocalStorage
 * context, the sampler of OTEL_TRACES_SAMPLER), a batch processor exporting over OTLP/HTTP in
 * the configured encoding, and the instrumentations of every library a PropDesk process talks
 * through. Loaded only when tracing is on (register.ts): off, none of these modules is required.
 */
export function startSdk(settings: TelemetrySettings, defaultServiceName: string, options: SdkOptions = {}): void {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the component's default.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName }).merge(detectResources({ detectors: [envDetector] }));
  // Both read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS and _TIMEOUT themselves.
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonExporter() : protobufExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter, batchSizes(process.env))] });
  provider.register(options.asyncContext === false ? { contextManager: new SynchronousContextManager() } : {});

  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: untracedRequest, requireParentforOutgoingSpans: options.asyncContext === false }),
      // Route handlers only: a span per middleware would cost more than it tells.
      ...(options.express === false ? [] : [new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] })]),
      // Not traced: health checks (probes, readiness loops, the gateway's /healthz), reflection, and
      // the streams that live as long as the processes (the outbox feed, key invalidations, the
      // market feed, the gateway's list calls): one span each for days, every statement of their
      // polls inside it, and the events the engine writes for a streamed quote tied to that endless
      // trace. A list request's message has spans of its own (the gateway's list-stream.ts).
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch', 'ServerReflectionInfo', 'StreamEvents', 'WatchInvalidations', 'StreamQuotes', 'StreamListAccounts'] }),
      // Statements only under a traced request or delivery (pollers and listeners stay quiet);
      // never the bound values (enhancedDatabaseReporting off): they hold hashes, tokens, names.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true, requestHook: nameStatementSpan }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({
        requestHook(span, request) {
          span.setAttribute('url.full', withoutQuery(`${request.origin}${request.path}`));
          if (request.path.includes('?')) span.setAttribute('url.query', 'REDACTED');
        },
      }),
      // trace_id and span_id on every log line written under a span; logs stay on stdout.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });

  installTracingHooks({
    serverSpan(current: Context): Span | undefined {
      const metadata = getRPCMetadata(current);
      return metadata?.type === RPCType.HTTP ? metadata.span : undefined;
    },
    setHttpRoute(method: string, template: string, current: Context): void {
      const metadata = getRPCMetadata(current);
      if (metadata?.type !== RPCType.HTTP) return;
      metadata.route = template;
      // Also on the span now: the instrumentation reads the route from the context active when the
      // response closes, which a process without async context (the gateway's) no longer has then.
      metadata.span.setAttribute(ATTR_HTTP_ROUTE, template);
      metadata.span.updateName(`${method} ${template}`);
    },
    flush: () => provider.forceFlush(),
  });
}
