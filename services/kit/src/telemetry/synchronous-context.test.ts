import { EventEmitter } from 'node:events';
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { SynchronousContextManager } from './synchronous-context';

const KEY = createContextKey('request');
const request = (name: string) => ROOT_CONTEXT.setValue(KEY, name);
const nameIn = (manager: SynchronousContextManager) => manager.active().getValue(KEY);

describe('SynchronousContextManager', () => {
  it('is the root context outside any call, and the given one inside, nested calls included', () => {
    const manager = new SynchronousContextManager();
    expect(manager.active()).toBe(ROOT_CONTEXT);
    const seen = manager.with(request('a'), () => [nameIn(manager), manager.with(request('b'), () => nameIn(manager)), nameIn(manager)]);
    expect(seen).toEqual(['a', 'b', 'a']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('restores the previous context when the call throws, and passes this and the arguments through', () => {
    const manager = new SynchronousContextManager();
    expect(() =>
      manager.with(request('a'), () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(manager.active()).toBe(ROOT_CONTEXT);
    const target = { factor: 3 };
    expect(manager.with(request('a'), function (this: typeof target, n: number) { return this.factor * n; }, target, 7)).toBe(21);
  });

  it('does not follow an await: what runs after one sees the context active where it resumes', async () => {
    const manager = new SynchronousContextManager();
    const after = await manager.with(request('a'), async () => {
      expect(nameIn(manager)).toBe('a');
      await new Promise((resolve) => setImmediate(resolve));
      return nameIn(manager);
    });
    expect(after).toBeUndefined();
  });

  it('runs a bound function in its context wherever it is called, and returns an emitter as it is', () => {
    const manager = new SynchronousContextManager();
    const bound = manager.bind(request('a'), (suffix: string) => `${String(nameIn(manager))}${suffix}`);
    expect(bound('!')).toBe('a!');
    expect(manager.with(request('b'), () => bound('?'))).toBe('a?');
    const emitter = new EventEmitter();
    expect(manager.bind(request('a'), emitter)).toBe(emitter);
    // Its listeners see the context active where the event is emitted.
    const heard: unknown[] = [];
    emitter.once('finish', () => heard.push(nameIn(manager)));
    manager.with(request('b'), () => emitter.emit('finish'));
    expect(heard).toEqual(['b']);
  });

  it('attaches a context until its token is disposed, once', () => {
    const manager = new SynchronousContextManager();
    const outer = manager.attach(request('a'));
    const inner = manager.attach(request('b'));
    expect(nameIn(manager)).toBe('b');
    inner.dispose();
    inner.dispose();
    expect(nameIn(manager)).toBe('a');
    outer.dispose();
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('forgets the active context when disabled', () => {
    const manager = new SynchronousContextManager();
    manager.with(request('a'), () => {
      manager.disable();
      expect(manager.active()).toBe(ROOT_CONTEXT);
    });
  });
});
