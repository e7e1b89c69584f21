import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * An OpenTelemetry context manager whose active context follows synchronous calls only: inside
 * `context.with(...)` and functions bound with `context.bind(...)`. It never follows an await, a
 * timer or an event on its own. Where a process needs a context there, it carries it itself
 * (tracing.ts: captureTraceContext, withTraceContext, CallOpts.traceContext).
 *
 * For the gateway (registerTelemetry's `asyncContext: false`), measured under the tracing bench:
 * - On Node 20 an AsyncLocalStorage in use turns on V8's promise hooks for every promise of the
 *   process, and the gateway's requests are made of awaits. The hooks cost the gateway about
 *   140 µs of CPU per request, more than half of what tracing cost it there.
 * - The SDK's managers also bind event emitters: the HTTP instrumentation's binding of each
 *   request and response patches seven methods on both, about 60 µs more per request. This
 *   manager returns an emitter as it is. A listener then runs in the context active where its
 *   event is emitted, so the gateway names its server span itself (tracing.ts setHttpRoute) and
 *   writes its access log inside the request's context.
 *
 * The instrumentations start their spans synchronously in the call they wrap (a request's `emit`,
 * a gRPC call, a Redis command, a log line), so they see the context the gateway enters there.
 */
export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      // No spread: most calls pass no arguments, and apply takes the array as it is.
      return args.length === 0 ? (fn as () => ReturnType<F>).call(thisArg) : fn.apply(thisArg, args);
    } finally {
      this.current = previous;
    }
  }

  /** A function runs in `context` wherever it is called; anything else (an event emitter) is returned as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const manager = this;
    return function bound(this: unknown, ...args: unknown[]) {
      return manager.with(context, fn, this, ...args);
    } as unknown as T;
  }

  /** `context` is active until the returned token is disposed (the API's experimental attach). */
  attach(context: Context): { dispose(): void } {
    const previous = this.current;
    this.current = context;
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        this.current = previous;
      },
    };
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
