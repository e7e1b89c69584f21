import type { Http2Server, ServerHttp2Stream } from 'node:http2';
import { credentials } from '@grpc/grpc-js';
import { authv1 } from '@propdesk/proto';
import { AppError } from './errors';
import { startGrpcServer, type StartedGrpcServer } from './grpc-server';
import { createLogger } from './logger';
import { implementServiceDouble } from './testing';

const logger = createLogger('grpc-server-test', { level: 'silent' });

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A few turns of the loop: a closed stream's 'close' has been emitted, and what follows it has run. */
async function turnsLater(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await nextTurn();
}

describe("the kit's gRPC server lets go of a finished call", () => {
  let server: StartedGrpcServer;
  let client: authv1.AuthServiceClient;
  const streams: ServerHttp2Stream[] = [];
  let endSlowCall!: () => void;
  const slowCallMayEnd = new Promise<void>((resolve) => (endSlowCall = resolve));

  beforeAll(async () => {
    const implementation = implementServiceDouble<authv1.AuthServiceServer>(authv1.AuthServiceService, logger, {
      async getOrganization(request) {
        if (request.organizationId === 'slow') await slowCallMayEnd;
        if (request.organizationId === 'missing') throw new AppError('not_found', 'no such organization');
        return { organization: undefined };
      },
    });
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: [{ name: 'propdesk.auth.v1.AuthService', definition: authv1.AuthServiceService, implementation }],
    });
    // The test's own look at the HTTP/2 streams under the calls (grpc-js keeps its HTTP/2 servers private).
    for (const http2Server of (server.server as unknown as { http2Servers: Map<Http2Server, unknown> }).http2Servers.keys()) {
      http2Server.on('stream', (stream: ServerHttp2Stream) => streams.push(stream));
    }
    client = new authv1.AuthServiceClient(server.address, credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await server.shutdown(100);
  });

  // Node keeps a closed HTTP/2 stream until a full GC (a weak reference that the young
  // generation's collector treats as strong), and the stream's listeners hold the whole call:
  // each call then lived on into the old generation (releasingOnClose in grpc-server.ts).
  it('drops every listener of a call\'s HTTP/2 stream once it has closed, answered or failed', async () => {
    const answers = await Promise.all(
      ['org-1', 'missing', 'org-2'].map(
        (organizationId) =>
          new Promise<string>((resolve) => client.getOrganization({ organizationId }, (err, response) => resolve(err ? `error ${err.code}` : `answered ${JSON.stringify(response)}`))),
      ),
    );
    expect(answers).toEqual(['answered {}', 'error 5', 'answered {}']);
    expect(streams).toHaveLength(3);
    await turnsLater();
    for (const stream of streams) {
      expect(stream.closed).toBe(true);
      expect(stream.eventNames()).toEqual(['error']);
      expect(stream.listenerCount('error')).toBe(1);
    }
  });

  it('leaves the stream of a call still running as it is, and lets go of it when it ends', async () => {
    streams.length = 0;
    const call = new Promise<string>((resolve) => client.getOrganization({ organizationId: 'slow' }, (err) => resolve(err ? `error ${err.code}` : 'answered')));
    while (streams.length === 0) await nextTurn();
    await turnsLater();
    const [stream] = streams;
    expect(stream.closed).toBe(false);
    expect(stream.listenerCount('close')).toBeGreaterThan(0);
    endSlowCall();
    expect(await call).toBe('answered');
    await turnsLater();
    expect(stream.closed).toBe(true);
    expect(stream.eventNames()).toEqual(['error']);
      expect(stream.listenerCount('error')).toBe(1);
  });
});
