import type { CallOpts } from '@propdesk/kit';

/** One request's outcome inside a batch answer. */
export type ItemOutcome<Res> = { ok: true; response: Res } | { ok: false; error: unknown };

export interface CoalescerOptions<Req, Res> {
  /** A lone request goes out as the plain unary call. */
  single(request: Req, opts: CallOpts): Promise<Res>;
  /**
   * Two or more go out as one batch call, whose answer has one outcome per request, in order.
   * `requestIds` are the requests' own; `opts` carries the earliest deadline. Resolving with
   * `undefined` means "batches are not supported" (e.g. a replica older than the batch RPC):
   * the requests then go out one by one.
   */
  batch(requests: Req[], requestIds: string[], opts: CallOpts): Promise<Array<ItemOutcome<Res>> | undefined>;
  /** Requests per batch call; more start another batch. */
  maxBatch: number;
  /** Observes the size of every call sent (1 for a single call). */
  onSend?(size: number): void;
}

interface Pending<Req, Res> {
  request: Req;
  opts: CallOpts;
  resolve(response: Res): void;
  reject(error: unknown): void;
}

/**
 * A request that finds the coalescer idle (no call of its own in flight, none waiting) goes out at
 * once as the plain unary call: with nobody to share a call with, waiting would only add latency
 * (one to four clients). Requests that arrive while calls are in flight are under load: those of
 * one turn of the event loop leave together, as one batch call, when the turn ends (setImmediate,
 * after every request that arrived in the same poll has been routed); they then share one gRPC
 * call and, on the service's side, one SQL statement. Every request keeps its own outcome: one
 * request's error does not fail the others, and a failure of the batch call itself (deadline,
 * service down) fails each of its requests with that error, as it would have failed them one by
 * one.
 */
export function coalesce<Req, Res>(options: CoalescerOptions<Req, Res>): (request: Req, opts: CallOpts) => Promise<Res> {
  let pending: Array<Pending<Req, Res>> = [];
  let scheduled = false;
  /** Calls sent and not answered yet (a batch counts once). */
  let inFlight = 0;
  const settled = () => {
    inFlight -= 1;
  };

  const sendOne = (call: Pending<Req, Res>) => {
    options.onSend?.(1);
    inFlight += 1;
    options.single(call.request, call.opts).then(
      (response) => {
        settled();
        call.resolve(response);
      },
      (error: unknown) => {
        settled();
        call.reject(error);
      },
    );
  };

  const sendOneByOne = (calls: Array<Pending<Req, Res>>) => {
    for (const call of calls) sendOne(call);
  };

  const send = (calls: Array<Pending<Req, Res>>) => {
    if (calls.length === 1) return sendOneByOne(calls);
    const deadlineMs = Math.min(...calls.map((c) => c.opts.deadlineMs ?? Number.POSITIVE_INFINITY));
    const requestIds = calls.map((c) => c.opts.requestId ?? '');
    // The batch's own spans belong to its first request's trace (as the request id of its metadata).
    const opts: CallOpts = {
      requestId: calls[0].opts.requestId,
      traceContext: calls[0].opts.traceContext,
      ...(Number.isFinite(deadlineMs) ? { deadlineMs } : {}),
    };
    options.onSend?.(calls.length);
    inFlight += 1;
    options
      .batch(calls.map((c) => c.request), requestIds, opts)
      .then(
        (outcomes) => {
          settled();
          if (outcomes === undefined) return sendOneByOne(calls);
          calls.forEach((call, i) => {
            const outcome = outcomes[i];
            if (outcome === undefined) call.reject(new Error('batch answer is missing a result'));
            else if (outcome.ok) call.resolve(outcome.response);
            else call.reject(outcome.error);
          });
        },
        (error: unknown) => {
          settled();
          for (const call of calls) call.reject(error);
        },
      );
  };

  const flush = () => {
    scheduled = false;
    const calls = pending;
    pending = [];
    for (let i = 0; i < calls.length; i += options.maxBatch) send(calls.slice(i, i + options.maxBatch));
  };

  return (request, opts) =>
    new Promise<Res>((resolve, reject) => {
      if (inFlight === 0 && !scheduled) {
        sendOne({ request, opts, resolve, reject });
        return;
      }
      pending.push({ request, opts, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
