import type { ServerWritableStream } from '@grpc/grpc-js';
import { requestIdOf, runWithContext, toServiceError } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import { position } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { streamEvents } from '../use-cases/stream-events';
import { toProtoEvent } from './mappers';

type StreamCall = ServerWritableStream<accountsv1.StreamEventsRequest, accountsv1.StreamEventsResponse>;

/** Open StreamEvents calls, so stop() can end them before the server drains (they never end on their own). */
export class ActiveStreams {
  private readonly closers = new Set<() => void>();

  add(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.closers]) close();
  }
}

export function createStreamEventsHandler(deps: AccountsDeps, streams: ActiveStreams): (call: StreamCall) => void {
  return (call) => {
    const requestId = requestIdOf(call.metadata);
    runWithContext({ requestId }, () => {
      let closed = false;
      const onClose: Array<() => void> = [];
      const close = () => {
        if (closed) return;
        closed = true;
        for (const callback of onClose.splice(0)) callback();
      };
      const untrack = streams.add(() => {
        close();
        call.end();
      });
      call.on('cancelled', close);
      call.on('close', close);
      call.on('error', close);

      let after: number;
      try {
        after = position(call.request.afterPosition, 'after_position');
      } catch (err) {
        untrack();
        call.emit('error', toServiceError(err));
        return;
      }
      const sink = {
        get closed() {
          return closed;
        },
        onClose(callback: () => void) {
          if (closed) callback();
          else onClose.push(callback);
        },
        async send(event: Parameters<typeof toProtoEvent>[0], head: number) {
          const flushed = call.write({ event: toProtoEvent(event), position: String(event.position), headPosition: String(head) });
          if (flushed || closed) return;
          // Wait for the consumer to read (or leave) instead of buffering without bound.
          await new Promise<void>((resolve) => {
            call.once('drain', resolve);
            onClose.push(resolve);
          });
        },
      };
      streamEvents(deps, after, sink).then(
        () => untrack(),
        (err: unknown) => {
          untrack();
          if (closed) return;
          deps.logger.warn({ err: (err as Error).message }, 'event stream failed');
          close();
          call.emit('error', toServiceError(err));
        },
      );
    });
  };
}
