import { ConfigError, loadConfig, z } from './config';
import { createLogger } from './logger';
import { deleteInBatches, envDuration, startRetention } from './retention';

const logger = createLogger('retention-test', { level: 'silent' });

describe('retention horizons from the environment', () => {
  const schema = z.object({ HORIZON: envDuration('30d') });
  const read = (value?: string) => loadConfig(schema, value === undefined ? {} : { HORIZON: value }, false).HORIZON;

  it('takes a number with a unit, a bare number as seconds, off as 0, and the default when unset', () => {
    expect(read()).toBe(30 * 86_400_000);
    expect(read('12h')).toBe(12 * 3_600_000);
    expect(read('90m')).toBe(90 * 60_000);
    expect(read('45s')).toBe(45_000);
    expect(read('500ms')).toBe(500);
    expect(read('120')).toBe(120_000);
    expect(read('1.5d')).toBe(1.5 * 86_400_000);
    expect(read('off')).toBe(0);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['soon', '-1d', '3 weeks', '1y']) expect(() => read(bad)).toThrow(ConfigError);
    expect(() => read('soon')).toThrow(/HORIZON: must be a duration/);
  });
});

describe('the retention scheduler', () => {
  it('runs every task with its own cutoff, skips tasks that are off, and survives a failing task', async () => {
    const now = new Date('2026-01-31T12:00:00Z');
    const retention = startRetention({ logger, intervalMs: 3_600_000, now: () => now });
    const cutoffs: Record<string, string> = {};
    retention.register({ name: 'a', horizonMs: 3_600_000, run: async (cutoff) => ((cutoffs.a = cutoff.toISOString()), 3) });
    retention.register({ name: 'broken', horizonMs: 1000, run: async () => Promise.reject(new Error('database gone')) });
    retention.register({ name: 'off', horizonMs: 0, run: async () => 99 });
    retention.register({ name: 'b', horizonMs: 86_400_000, run: async (cutoff) => ((cutoffs.b = cutoff.toISOString()), 0) });
    expect(await retention.runOnce()).toEqual({ a: 3, b: 0 });
    expect(cutoffs).toEqual({ a: '2026-01-31T11:00:00.000Z', b: '2026-01-30T12:00:00.000Z' });
    await retention.stop();
  });

  it('never runs two passes at once', async () => {
    const retention = startRetention({ logger, intervalMs: 3_600_000 });
    let active = 0;
    let most = 0;
    retention.register({
      name: 'slow',
      horizonMs: 1,
      run: async () => {
        active += 1;
        most = Math.max(most, active);
        await new Promise((resolve) => setTimeout(resolve, 50));
        active -= 1;
        return 1;
      },
    });
    await Promise.all([retention.runOnce(), retention.runOnce(), retention.runOnce()]);
    expect(most).toBe(1);
    await retention.stop();
  });

  it('deletes in batches until a batch comes back short', async () => {
    const batches: number[] = [];
    let left = 12;
    const total = await deleteInBatches(async (size) => {
      const removed = Math.min(size, left);
      left -= removed;
      batches.push(removed);
      return removed;
    }, 5);
    expect({ total, batches }).toEqual({ total: 12, batches: [5, 5, 2] });
  });
});
