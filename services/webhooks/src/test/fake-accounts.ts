import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { accountsv1 } from '@propdesk/proto';

/**
 * A test double of ANOTHER service (accounts) over real gRPC: it implements StreamEvents, serving
 * the events a test publishes, in order, with positions, and resuming after a position; and
 * AppendEvents as the real one does (idempotent by id, then streamed like any other event).
 */
export interface FakeAccounts {
  address: string;
  port: number;
  /** An event of the organization, live unless `livemode: false`; `traceparent`: the W3C trace context it carries (outbox.ts keeps the writer's). */
  publish(event: {
    type: string;
    organizationId: string;
    livemode?: boolean;
    data?: Record<string, unknown>;
    /** Its place in its account's events (SPEC 17); absent for an event about no account. */
    sequence?: number;
    id?: string;
    traceparent?: string;
  }): { id: string; position: number };
  /** Every event AppendEvents received, repeats included (what the forwarder sent). */
  appendCalls(): accountsv1.Event[];
  /** Makes AppendEvents fail with UNAVAILABLE while true. */
  failAppends(failing: boolean): void;
  /** How many StreamEvents calls were opened (reconnects show up here). */
  streamsOpened(): number;
  /** Ends every open stream with UNAVAILABLE, as a crashing accounts service would. */
  dropStreams(): void;
  stop(): Promise<void>;
}

let counter = 0;

export async function startFakeAccounts(port = 0): Promise<FakeAccounts> {
  const events: accountsv1.StreamEventsResponse[] = [];
  const open = new Set<{ call: ServerWritableStream<accountsv1.StreamEventsRequest, accountsv1.StreamEventsResponse>; next: number }>();
  let opened = 0;
  const appended: accountsv1.Event[] = [];
  let appendsFail = false;
  const pump = () => {
    for (const sub of open) {
      while (sub.next < events.length) {
        sub.call.write({ ...events[sub.next], headPosition: String(events.length) });
        sub.next += 1;
      }
    }
  };
  const implementation = {
    streamEvents(call: ServerWritableStream<accountsv1.StreamEventsRequest, accountsv1.StreamEventsResponse>) {
      opened += 1;
      const after = Number(call.request.afterPosition || '0');
      const sub = { call, next: events.findIndex((e) => Number(e.position) > after) };
      if (sub.next < 0) sub.next = events.length;
      open.add(sub);
      call.on('cancelled', () => open.delete(sub));
      call.on('close', () => open.delete(sub));
      pump();
    },
    appendEvents(
      call: ServerUnaryCall<accountsv1.AppendEventsRequest, accountsv1.AppendEventsResponse>,
      callback: sendUnaryData<accountsv1.AppendEventsResponse>,
    ) {
      if (appendsFail) return callback({ code: status.UNAVAILABLE, details: 'accounts going away' });
      let count = 0;
      for (const event of call.request.events) {
        appended.push(event);
        if (events.some((e) => e.event?.id === event.id)) continue;
        const position = events.length + 1;
        events.push({ position: String(position), headPosition: String(position), event });
        count += 1;
      }
      pump();
      callback(null, { appended: count });
    },
  };
  const server = new Server();
  server.addService(accountsv1.AccountsServiceService, implementation as unknown as UntypedServiceImplementation);
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${boundPort}`,
    port: boundPort,
    publish(input) {
      counter += 1;
      const id = input.id ?? `evt_test${Date.now().toString(36)}${counter}`;
      const position = events.length + 1;
      events.push({
        position: String(position),
        headPosition: String(position),
        event: {
          id,
          type: input.type,
          organizationId: input.organizationId,
          livemode: input.livemode ?? true,
          createdAt: new Date(),
          data: input.data ?? { account: 1000 + position },
          sequence: input.sequence === undefined ? undefined : String(input.sequence),
          traceparent: input.traceparent ?? '',
          tracestate: '',
        },
      });
      pump();
      return { id, position };
    },
    appendCalls: () => [...appended],
    failAppends(failing) {
      appendsFail = failing;
    },
    streamsOpened: () => opened,
    dropStreams() {
      for (const sub of open) sub.call.emit('error', { code: status.UNAVAILABLE, details: 'accounts going away' });
      open.clear();
    },
    async stop() {
      for (const sub of open) sub.call.end();
      open.clear();
      server.forceShutdown();
    },
  };
}
