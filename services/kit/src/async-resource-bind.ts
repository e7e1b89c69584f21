import { AsyncResource } from 'node:async_hooks';

/**
 * Node 20's `AsyncResource.prototype.bind` gives every bound function an `asyncResource` accessor
 * made of two `util.deprecate` wrappers (DEP0172), and each wrapper is re-parented with
 * `Object.setPrototypeOf`: a new hidden class per call. A new resource, its bind and one call took
 * 13.1 µs that way and 0.65 µs with this method, and more of what the bound function holds outlived
 * young-generation collections. Node's HTTP/2 client binds once per request
 * (`ClientHttp2Session.request`), so every gRPC call a process makes paid it. The property is
 * deprecated, and later Node versions drop it (nodejs/node#58618; the cost: nodejs/node#58218).
 *
 * This replaces the method with the same binding: the function runs in the resource's async scope,
 * with `thisArg` or the caller's `this`, its arguments and its return value; `length` is the
 * function's. `asyncResource` stays, as a plain property holding the resource, without the warning.
 * Only where Node's own method builds that accessor (feature-checked, not version-checked), once
 * per process.
 */
export function installLeanAsyncResourceBind(): void {
  // The one record of the decision (installed, or found not needed), on the prototype itself so that
  // another copy of this module (a test runner's registry) sees it too.
  const proto = AsyncResource.prototype as AsyncResource & { [DECIDED]?: true };
  if (proto[DECIDED]) return;
  Object.defineProperty(proto, DECIDED, { value: true });
  if (bindBuildsAccessor()) Object.defineProperty(proto, 'bind', { configurable: true, enumerable: false, writable: true, value: leanBind });
}

const DECIDED = Symbol.for('propdesk.leanAsyncResourceBind');

function bindBuildsAccessor(): boolean {
  const probe = new AsyncResource('propdesk-bind-probe', { requireManualDestroy: true });
  const bound = probe.bind(() => undefined);
  return typeof Object.getOwnPropertyDescriptor(bound, 'asyncResource')?.get === 'function';
}

function leanBind<Func extends (...args: never[]) => unknown>(this: AsyncResource, fn: Func, thisArg?: ThisParameterType<Func>): Func & { asyncResource: AsyncResource } {
  if (typeof fn !== 'function') {
    throw Object.assign(new TypeError(`The "fn" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`), { code: 'ERR_INVALID_ARG_TYPE' });
  }
  const resource = this;
  const run = resource.runInAsyncScope as (fn: Func, thisArg: unknown, ...args: unknown[]) => unknown;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return run.call(resource, fn, this, ...args);
        }
      : run.bind(resource, fn, thisArg);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  Object.defineProperty(bound, 'asyncResource', { configurable: true, enumerable: true, value: resource, writable: true });
  return bound as unknown as Func & { asyncResource: AsyncResource };
}
