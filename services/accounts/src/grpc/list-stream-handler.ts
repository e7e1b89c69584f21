import { status, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Registry } from 'prom-client';
import {
  ATTR_REQUEST_ID,
  inSpanOf,
  requestIdOf,
  rpcMessageObserver,
  runWithContext,
  SpanKind,
  STREAM_LIST_ACCOUNTS_PATH,
  STREAM_LIST_ATTRIBUTES,
  STREAM_LIST_SPAN,
  toItemError,
} from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import type { AccountsDeps } from '../deps';
import { answerListBatch } from './list-batch';
import type { ActiveStreams } from './stream-events-handler';

type ListStreamCall = ServerDuplexStream<accountsv1.StreamListAccountsRequest, accountsv1.StreamListAccountsResponse>;

/**
 * StreamListAccounts: every request message is answered as BatchListAccounts would answer it, with
 * its id, as soon as its pages are ready (answers may overtake each other). The call ends when the
 * caller half-closes it, or when the service drains (ActiveStreams), once the answers under way
 * are written: the caller sends again, as calls, whatever it had not been answered.
 */
export function createStreamListAccountsHandler(deps: AccountsDeps, streams: ActiveStreams, metrics?: Registry): (call: ListStreamCall) => void {
  // Each answered message is counted and timed as a call of the method (the kit's rpc metrics).
  const observe = metrics ? rpcMessageObserver(metrics, STREAM_LIST_ACCOUNTS_PATH) : undefined;
  return (call) => {
    const callRequestId = requestIdOf(call.metadata);
    let answering = 0;
    let ending = false;
    let closed = false;
    const finish = () => {
      if (closed || !ending || answering > 0) return;
      closed = true;
      untrack();
      call.end();
    };
    const untrack = streams.add(() => {
      ending = true;
      finish();
    });
    const gone = () => {
      closed = true;
      untrack();
    };
    call.on('cancelled', gone);
    call.on('error', gone);
    call.on('end', () => {
      ending = true;
      finish();
    });
    call.on('data', (message: accountsv1.StreamListAccountsRequest) => {
      const started = process.hrtime.bigint();
      answering += 1;
      const requestId = message.requestIds[0] || callRequestId;
      const caller = message.traceparent ? { traceparent: message.traceparent, tracestate: message.tracestate } : null;
      runWithContext({ requestId }, () =>
        inSpanOf(caller, STREAM_LIST_SPAN, { kind: SpanKind.SERVER, attributes: { ...STREAM_LIST_ATTRIBUTES, [ATTR_REQUEST_ID]: requestId } }, () =>
          answerListBatch(deps, message.requests, message.requestIds, requestId),
        ).catch((err: unknown) => message.requests.map(() => ({ error: toItemError(err) }))),
      ).then((results) => {
        answering -= 1;
        if (!closed) call.write({ id: message.id, results });
        observe?.(status.OK, started);
        finish();
      });
    });
  };
}
