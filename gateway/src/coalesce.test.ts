import type { CallOpts } from '@propdesk/kit';
import { coalesce, type ItemOutcome } from './coalesce';

interface Sent {
  kind: 'single' | 'batch';
  requests: number[];
  requestIds?: string[];
  opts: CallOpts;
}

/** A coalescer over recording fakes: a request n answers n * 10, or fails when n is negative. */
function recording(options: { maxBatch?: number; batch?: 'answers' | 'unsupported' | 'fails' } = {}) {
  const sent: Sent[] = [];
  const sizes: number[] = [];
  const call = coalesce<number, number>({
    single: async (request, opts) => {
      sent.push({ kind: 'single', requests: [request], opts });
      if (request < 0) throw new Error(`bad ${request}`);
      return request * 10;
    },
    batch: async (requests, requestIds, opts) => {
      sent.push({ kind: 'batch', requests, requestIds, opts });
      if (options.batch === 'fails') throw new Error('service down');
      if (options.batch === 'unsupported') return undefined;
      return requests.map((n): ItemOutcome<number> => (n < 0 ? { ok: false, error: new Error(`bad ${n}`) } : { ok: true, response: n * 10 }));
    },
    maxBatch: options.maxBatch ?? 32,
    onSend: (size) => sizes.push(size),
  });
  return { call, sent, sizes };
}

const settle = <T>(promises: Array<Promise<T>>) => Promise.allSettled(promises);

describe('coalesce', () => {
  it('sends a lone request as the plain call', async () => {
    const { call, sent, sizes } = recording();
    await expect(call(4, { requestId: 'r4', deadlineMs: 1000 })).resolves.toBe(40);
    expect(sent).toEqual([{ kind: 'single', requests: [4], opts: { requestId: 'r4', deadlineMs: 1000 } }]);
    expect(sizes).toEqual([1]);
  });

  it('sends the requests of one turn as one batch, with their request ids and the earliest deadline', async () => {
    const { call, sent, sizes } = recording();
    const answers = await Promise.all([call(1, { requestId: 'a', deadlineMs: 900 }), call(2, { requestId: 'b', deadlineMs: 500 }), call(3, { requestId: 'c' })]);
    expect(answers).toEqual([10, 20, 30]);
    expect(sent).toEqual([{ kind: 'batch', requests: [1, 2, 3], requestIds: ['a', 'b', 'c'], opts: { requestId: 'a', deadlineMs: 500 } }]);
    expect(sizes).toEqual([3]);
  });

  it("fails only the request whose item failed; the others get their own answers", async () => {
    const { call } = recording();
    const [a, b, c] = await settle([call(1, {}), call(-2, {}), call(3, {})]);
    expect(a).toEqual({ status: 'fulfilled', value: 10 });
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'bad -2' } });
    expect(c).toEqual({ status: 'fulfilled', value: 30 });
  });

  it('fails every request of a batch whose call failed, with that error', async () => {
    const { call } = recording({ batch: 'fails' });
    const outcomes = await settle([call(1, {}), call(2, {})]);
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as Error).message)).toEqual(['service down', 'service down']);
  });

  it('falls back on plain calls when the service does not support batches', async () => {
    const { call, sent } = recording({ batch: 'unsupported' });
    expect(await Promise.all([call(1, { requestId: 'a' }), call(2, { requestId: 'b' })])).toEqual([10, 20]);
    expect(sent.map((s) => [s.kind, s.requests])).toEqual([
      ['batch', [1, 2]],
      ['single', [1]],
      ['single', [2]],
    ]);
    expect(sent[2].opts).toEqual({ requestId: 'b' });
  });

  it('splits a turn larger than maxBatch, and starts afresh on the next turn', async () => {
    const { call, sizes } = recording({ maxBatch: 4 });
    const first = await Promise.all(Array.from({ length: 10 }, (_v, i) => call(i, {})));
    expect(first).toEqual(Array.from({ length: 10 }, (_v, i) => i * 10));
    expect(sizes).toEqual([4, 4, 2]);
    await call(7, {});
    expect(sizes).toEqual([4, 4, 2, 1]);
  });
});
