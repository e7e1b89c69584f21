import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
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

const TRACE = createContextKey('trace');

const settle = <T>(promises: Array<Promise<T>>) => Promise.allSettled(promises);

/** A request sent first, while the coalescer is idle: it goes out alone, and the ones after it in the same turn find a call in flight. */
const LEAD = 100;

describe('coalesce', () => {
  it('sends a lone request as the plain call at once, without waiting for the turn to end', async () => {
    const { call, sent, sizes } = recording();
    const answer = call(4, { requestId: 'r4', deadlineMs: 1000 });
    expect(sent).toEqual([{ kind: 'single', requests: [4], opts: { requestId: 'r4', deadlineMs: 1000 } }]);
    await expect(answer).resolves.toBe(40);
    expect(sizes).toEqual([1]);
  });

  it('while a call is in flight, sends the requests of one turn as one batch, with their request ids and the earliest deadline', async () => {
    const { call, sent, sizes } = recording();
    const answers = await Promise.all([call(LEAD, {}), call(1, { requestId: 'a', deadlineMs: 900 }), call(2, { requestId: 'b', deadlineMs: 500 }), call(3, { requestId: 'c' })]);
    expect(answers).toEqual([1000, 10, 20, 30]);
    expect(sent).toEqual([
      { kind: 'single', requests: [LEAD], opts: {} },
      { kind: 'batch', requests: [1, 2, 3], requestIds: ['a', 'b', 'c'], opts: { requestId: 'a', deadlineMs: 500 } },
    ]);
    expect(sizes).toEqual([1, 3]);
  });

  it("carries its first request's trace context, as it carries that request's id", async () => {
    const { call, sent } = recording();
    const [first, second] = [ROOT_CONTEXT.setValue(TRACE, 'first'), ROOT_CONTEXT.setValue(TRACE, 'second')];
    await Promise.all([call(LEAD, {}), call(1, { requestId: 'a', traceContext: first }), call(2, { requestId: 'b', traceContext: second })]);
    expect(sent[1].kind).toBe('batch');
    expect(sent[1].opts.traceContext).toBe(first);
  });

  it('sends a request alone again once the calls in flight are answered', async () => {
    const { call, sizes } = recording();
    await Promise.all([call(LEAD, {}), call(1, {}), call(2, {})]);
    await call(3, {});
    expect(sizes).toEqual([1, 2, 1]);
  });

  it("fails only the request whose item failed; the others get their own answers", async () => {
    const { call } = recording();
    const [, a, b, c] = await settle([call(LEAD, {}), call(1, {}), call(-2, {}), call(3, {})]);
    expect(a).toEqual({ status: 'fulfilled', value: 10 });
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'bad -2' } });
    expect(c).toEqual({ status: 'fulfilled', value: 30 });
  });

  it('fails every request of a batch whose call failed, with that error', async () => {
    const { call } = recording({ batch: 'fails' });
    const [lead, ...outcomes] = await settle([call(LEAD, {}), call(1, {}), call(2, {})]);
    expect(lead).toEqual({ status: 'fulfilled', value: 1000 });
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as Error).message)).toEqual(['service down', 'service down']);
  });

  it('falls back on plain calls when the service does not support batches', async () => {
    const { call, sent } = recording({ batch: 'unsupported' });
    expect(await Promise.all([call(LEAD, {}), call(1, { requestId: 'a' }), call(2, { requestId: 'b' })])).toEqual([1000, 10, 20]);
    expect(sent.map((s) => [s.kind, s.requests])).toEqual([
      ['single', [LEAD]],
      ['batch', [1, 2]],
      ['single', [1]],
      ['single', [2]],
    ]);
    expect(sent[3].opts).toEqual({ requestId: 'b' });
  });

  it('splits a turn larger than maxBatch, and starts afresh on the next turn', async () => {
    const { call, sizes } = recording({ maxBatch: 4 });
    const first = await Promise.all(Array.from({ length: 10 }, (_v, i) => call(i, {})));
    expect(first).toEqual(Array.from({ length: 10 }, (_v, i) => i * 10));
    expect(sizes).toEqual([1, 4, 4, 1]);
    await call(7, {});
    expect(sizes).toEqual([1, 4, 4, 1, 1]);
  });
});
