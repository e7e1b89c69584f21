import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { installLeanAsyncResourceBind } from './async-resource-bind';
import { http2Get } from './testing';

/** Node's bind as it is documented: @types/node leaves out `thisArg` and the bound function's `asyncResource`. */
type Bound<F> = F & { asyncResource: AsyncResource };
const bind = <F extends (...args: never[]) => unknown>(resource: AsyncResource, fn: F, thisArg?: unknown) =>
  (resource.bind as (fn: F, thisArg?: unknown) => Bound<F>).call(resource, fn, thisArg);

describe('installLeanAsyncResourceBind', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  beforeAll(() => {
    process.on('warning', onWarning);
    installLeanAsyncResourceBind();
    installLeanAsyncResourceBind();
  });
  afterAll(() => {
    process.off('warning', onWarning);
  });

  it('binds as Node does: the resource scope, the arguments, this, the return value and length', () => {
    const store = new AsyncLocalStorage<string>();
    const resource = store.run('where it was made', () => new AsyncResource('test-bind'));
    function seen(this: unknown, a: number, b: number) {
      return { self: this, sum: a + b, scope: executionAsyncId(), store: store.getStore() };
    }
    const bound = bind(resource, seen);
    const owner = { bound };
    const result = store.run('where it is called', () => owner.bound(2, 3));
    expect(result).toEqual({ self: owner, sum: 5, scope: resource.asyncId(), store: 'where it was made' });
    expect(bound.length).toBe(2);

    const withThis = bind(resource, seen, 'given this');
    expect(withThis(1, 1)).toMatchObject({ self: 'given this', sum: 2, scope: resource.asyncId() });

    const scopeId = (): number => executionAsyncId();
    const staticBound = AsyncResource.bind(scopeId) as Bound<typeof scopeId>;
    expect(staticBound()).toBe(staticBound.asyncResource.asyncId());
  });

  it('keeps asyncResource as a plain property, with no deprecation warning and no accessor built per bind', () => {
    const resource = new AsyncResource('test-bind');
    const bound = bind(resource, () => 1);
    const property = Object.getOwnPropertyDescriptor(bound, 'asyncResource');
    // Node 20's own bind defines a getter and a setter here, each a util.deprecate wrapper.
    expect(property).toEqual({ value: resource, enumerable: true, configurable: true, writable: true });
    expect(bound.asyncResource).toBe(resource);
    expect(warnings.map((w) => w.message)).toEqual([]);
  });

  it('refuses what is not a function, as Node does', () => {
    expect(() => bind(new AsyncResource('test-bind'), 'nope' as never)).toThrow(expect.objectContaining({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('leaves HTTP/2 client requests working (Node binds each one)', async () => {
    const server = http2.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const bodies = await Promise.all([1, 2, 3].map(() => http2Get(session)));
      expect(bodies).toEqual(['pong', 'pong', 'pong']);
    } finally {
      session.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
