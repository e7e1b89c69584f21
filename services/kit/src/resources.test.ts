import { createLogger } from './logger';
import { ResourceStack, StackClosedError } from './resources';
import { waitUntil } from './testing';

const logger = createLogger('resources-test', { level: 'silent' });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the resource stack', () => {
  it('stops resources in the reverse of their start order', async () => {
    const log: string[] = [];
    const stack = new ResourceStack(logger);
    await stack.build(async () => {
      stack.add('database', 'db', (db) => void log.push(`close ${db}`));
      await stack.start('listener', async () => 'listener', async (l) => void log.push(`close ${l}`));
      stack.onStop('timer', () => void log.push('clear timer'));
      await stack.start('server', () => 'server', (s) => void log.push(`close ${s}`));
    });
    expect(stack.names).toEqual(['database', 'listener', 'timer', 'server']);
    await stack.stop();
    expect(log).toEqual(['close server', 'clear timer', 'close listener', 'close db']);
    expect(stack.names).toEqual([]);
  });

  it('when a start fails, stops what was already started and rethrows', async () => {
    const log: string[] = [];
    const stack = new ResourceStack(logger);
    const failing = stack.build(async () => {
      stack.add('database', 'db', () => void log.push('close db'));
      await stack.start('listener', () => 'l', () => void log.push('close listener'));
      await stack.start('server', () => Promise.reject(new Error('port taken')), () => void log.push('close server'));
    });
    await expect(failing).rejects.toThrow('port taken');
    expect(log).toEqual(['close listener', 'close db']);
  });

  it('a failing stop step does not keep the others from running', async () => {
    const log: string[] = [];
    const stack = new ResourceStack(logger);
    stack.add('database', 'db', () => void log.push('close db'));
    stack.add('broken', 'b', () => Promise.reject(new Error('boom')));
    await stack.stop();
    expect(log).toEqual(['close db']);
  });

  it('stops once, however often it is asked', async () => {
    let closes = 0;
    const stack = new ResourceStack(logger);
    stack.add('database', 'db', async () => {
      await sleep(20);
      closes += 1;
    });
    await Promise.all([stack.stop(), stack.stop()]);
    await stack.stop();
    expect(closes).toBe(1);
  });

  it('does not wait past the stop deadline for a step that hangs, and still runs the rest', async () => {
    const log: string[] = [];
    const stack = new ResourceStack(logger, { stopDeadlineMs: 100 });
    stack.add('database', 'db', () => void log.push('close db'));
    stack.add('hanging server', 's', () => new Promise<void>(() => undefined));
    const started = Date.now();
    await stack.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(log).toEqual(['close db']);
  });

  it('abandons a start that passes its deadline, and closes what it opens afterwards', async () => {
    const log: string[] = [];
    const stack = new ResourceStack(logger, { startDeadlineMs: 50 });
    let late: Promise<unknown> | undefined;
    const slow = stack.build(async () => {
      stack.add('database', 'db', () => void log.push('close db'));
      await sleep(150);
      late = stack.start('listener', () => 'l', () => void log.push('close listener'));
      await late;
    });
    await expect(slow).rejects.toThrow(/start did not finish within 50 ms \(open: database\)/);
    expect(log).toEqual(['close db']);
    // The abandoned start goes on and opens the listener on a closed stack.
    await waitUntil(() => late !== undefined, { what: 'the late start' });
    await expect(late).rejects.toBeInstanceOf(StackClosedError);
    const opened = new ResourceStack(logger);
    await opened.stop();
    expect(() => opened.add('late', 'x', () => void log.push('close late'))).toThrow(StackClosedError);
    // What is added to a closed stack is closed at once.
    await waitUntil(() => log.includes('close late'), { what: 'the late resource closed' });
    expect(log).toEqual(['close db', 'close late']);
  });
});
