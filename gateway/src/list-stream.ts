import { Metadata, status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import type { accountsv1 } from '@propdesk/proto';
import {
  callMetadata,
  captureTraceContext,
  ChurnMap,
  currentTraceContext,
  fromItemError,
  fromServiceError,
  inSpanOf,
  SpanKind,
  STREAM_LIST_ATTRIBUTES,
  STREAM_LIST_SPAN,
  tracingActive,
  type ServiceClient,
  type StoredTraceContext,
  type TraceContext,
  withoutStackTraces,
} from '@propdesk/kit';
import type { ItemOutcome } from './coalesce';

type Outcomes = Array<ItemOutcome<accountsv1.ListAccountsResponse>>;
type Call = ClientDuplexStream<accountsv1.StreamListAccountsRequest, accountsv1.StreamListAccountsResponse>;

export interface ListStreamOptions {
  /** Calls open at once; each message goes to the next. */
  streams: number;
  /** A call takes this many messages, or is this old, before a new one replaces it. */
  maxMessages: number;
  maxAgeMs: number;
  /** After a call failed (service restarting, unreachable), messages go as calls this long. */
  backoffMs: number;
  /** After UNIMPLEMENTED (a replica from before StreamListAccounts): this long. */
  unimplementedBackoffMs: number;
}

export const LIST_STREAM_DEFAULTS: ListStreamOptions = {
  streams: 2,
  maxMessages: 20_000,
  maxAgeMs: 30_000,
  backoffMs: 1_000,
  unimplementedBackoffMs: 60_000,
};

export interface ListStream {
  /**
   * The requests answered over an open StreamListAccounts call, one outcome per request in order;
   * `fallback` (the same requests as calls) answers them when no call is open, and those a call
   * left unanswered when it ended. Rejects with the deadline's error after `deadlineMs`.
   */
  send(
    requests: accountsv1.ListAccountsRequest[],
    requestIds: string[],
    deadlineMs: number,
    fallback: () => Promise<Outcomes>,
    /** The trace the message's spans belong to (its first request's); with tracing off, unused. */
    traceContext?: TraceContext,
  ): Promise<Outcomes>;
  close(): void;
}

interface Waiting {
  settle(outcome: { ok: true; results: accountsv1.BatchListAccountsResult[] } | { ok: false; error: unknown } | { ok: 'retry' }): void;
}

interface OpenCall {
  call: Call;
  /** Its messages waiting for their answer, by id: one in and out per message (a ChurnMap, so that they die young). */
  waiting: ChurnMap<string, Waiting>;
  sent: number;
  openedAt: number;
  retired: boolean;
}

const deadlineError = () =>
  fromServiceError(Object.assign(new Error('Deadline exceeded'), { code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: new Metadata() }));

/** A batch's results as outcomes, one per request in order (BatchListAccounts' and a message's alike). */
export function outcomesOf(results: accountsv1.BatchListAccountsResult[]): Outcomes {
  return results.map((result) =>
    result.response
      ? { ok: true, response: result.response }
      : { ok: false, error: withoutStackTraces(() => fromItemError(result.error ?? { code: 'internal_error', message: '', param: '' })) },
  );
}

/**
 * The gateway's list requests as messages of long-lived StreamListAccounts calls (a message on an
 * open HTTP/2 stream costs a fraction of a unary call: no call objects, headers, trailers or
 * per-call filters on either side). Calls are replaced after `maxMessages` or `maxAgeMs`, so that
 * the channel's round-robin spreads them over the service's replicas as it spreads calls. A list
 * only reads: whatever a call leaves unanswered when it ends (a replica draining, a connection
 * lost) is sent again through `fallback`, and while no call can be opened every message goes that
 * way. With tracing on, each message has a client span of its own and carries its trace context,
 * which the service's span for the message continues.
 */
export function createListStream(accounts: ServiceClient<accountsv1.AccountsServiceClient>, options: ListStreamOptions = LIST_STREAM_DEFAULTS): ListStream {
  const slots: Array<OpenCall | undefined> = new Array(options.streams).fill(undefined);
  /** Every call not ended yet: the slots' and the retired ones still answering. */
  const live = new Set<OpenCall>();
  let next = 0;
  let lastId = 0;
  let unavailableUntil = 0;
  let closed = false;

  /** Takes no more messages: out of its slot (a new call takes the slot at the next send). */
  const vacate = (open: OpenCall) => {
    open.retired = true;
    const slot = slots.indexOf(open);
    if (slot >= 0) slots[slot] = undefined;
  };

  const retire = (open: OpenCall) => {
    if (open.retired) return;
    vacate(open);
    // Half-closed: the service answers what it has and ends the call.
    open.call.end();
  };

  const ended = (open: OpenCall, error?: ServiceError) => {
    live.delete(open);
    vacate(open);
    if (error && !closed) {
      const now = Date.now();
      if (error.code === status.UNIMPLEMENTED) unavailableUntil = now + options.unimplementedBackoffMs;
      else if (error.code !== status.CANCELLED) unavailableUntil = now + options.backoffMs;
    }
    const left = [...open.waiting.values()];
    open.waiting.clear();
    for (const waiting of left) waiting.settle({ ok: 'retry' });
  };

  const open = (): OpenCall => {
    const call = accounts.raw.streamListAccounts(callMetadata());
    const opened: OpenCall = { call, waiting: new ChurnMap(), sent: 0, openedAt: Date.now(), retired: false };
    call.on('data', (message: accountsv1.StreamListAccountsResponse) => {
      const waiting = opened.waiting.get(message.id);
      if (!waiting) return;
      opened.waiting.delete(message.id);
      waiting.settle({ ok: true, results: message.results });
    });
    call.on('error', (error: ServiceError) => ended(opened, error));
    call.on('end', () => ended(opened));
    live.add(opened);
    return opened;
  };

  const pick = (): OpenCall | undefined => {
    if (closed || Date.now() < unavailableUntil) return undefined;
    const slot = next;
    next = (next + 1) % slots.length;
    let current = slots[slot];
    if (current && (current.sent >= options.maxMessages || Date.now() - current.openedAt >= options.maxAgeMs)) {
      retire(current);
      current = undefined;
    }
    if (!current) {
      current = open();
      slots[slot] = current;
    }
    return current;
  };

  return {
    send(requests, requestIds, deadlineMs, fallback, traceContext) {
      const target = pick();
      if (!target) return fallback();
      if (!tracingActive()) return sendOn(target, requests, requestIds, deadlineMs, fallback, null);
      // The message's own client span; the service's span for it joins the trace (list-stream-handler.ts).
      return inSpanOf(traceContext ?? captureTraceContext(), STREAM_LIST_SPAN, { kind: SpanKind.CLIENT, attributes: STREAM_LIST_ATTRIBUTES }, () =>
        sendOn(target, requests, requestIds, deadlineMs, fallback, currentTraceContext()),
      );
    },
    close() {
      closed = true;
      for (const open of [...live]) open.call.cancel();
    },
  };

  function sendOn(
    target: OpenCall,
    requests: accountsv1.ListAccountsRequest[],
    requestIds: string[],
    deadlineMs: number,
    fallback: () => Promise<Outcomes>,
    traceContext: StoredTraceContext | null,
  ): Promise<Outcomes> {
    return new Promise<Outcomes>((resolve, reject) => {
      lastId = lastId >= Number.MAX_SAFE_INTEGER ? 1 : lastId + 1;
      const id = String(lastId);
      const timer = setTimeout(() => {
        target.waiting.delete(id);
        reject(deadlineError());
      }, deadlineMs);
      target.waiting.set(id, {
        settle(outcome) {
          clearTimeout(timer);
          if (outcome.ok === 'retry') fallback().then(resolve, reject);
          else if (outcome.ok) resolve(outcomesOf(outcome.results));
          else reject(outcome.error);
        },
      });
      target.sent += 1;
      target.call.write({ id, requests, requestIds, traceparent: traceContext?.traceparent ?? '', tracestate: traceContext?.tracestate ?? '' });
    });
  }
}
