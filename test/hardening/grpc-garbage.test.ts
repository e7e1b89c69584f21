/**
 * Bytes that are not a protobuf message of the method's request type are the caller's fault:
 * every method of every service (our own, health and reflection) answers INVALID_ARGUMENT with
 * the API code invalid_request in the trailers, never INTERNAL, whether the method is unary or
 * streams in either direction.
 */
import { Client, credentials, Metadata, status, type ServiceError, type ServiceDefinition } from '@grpc/grpc-js';
import { authv1, accountsv1, tradingv1, webhooksv1 } from '@propdesk/proto';
import { API_CODE_METADATA } from '@propdesk/kit';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** A field of wire type 7 and one of wire type 6 (neither exists), a varint cut short. */
const GARBAGE = [Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.from([0x0e, 0x01]), Buffer.from([0x08, 0xff, 0xff])];

const identity = (b: Buffer): Buffer => b;

interface Outcome {
  code: number;
  apiCode: unknown;
}

function call(client: Client, path: string, requestStream: boolean, responseStream: boolean, payload: Buffer): Promise<Outcome> {
  const deadline = Date.now() + 5000;
  return new Promise((resolve) => {
    const done = (err: ServiceError | null) => resolve({ code: err?.code ?? status.OK, apiCode: err?.metadata?.get(API_CODE_METADATA)[0] });
    if (!requestStream && !responseStream) {
      client.makeUnaryRequest(path, identity, identity, payload, new Metadata(), { deadline }, (err) => done(err));
    } else if (!requestStream) {
      const stream = client.makeServerStreamRequest(path, identity, identity, payload, new Metadata(), { deadline });
      stream.on('data', () => undefined);
      stream.on('error', (err: ServiceError) => done(err));
      stream.on('end', () => done(null));
    } else if (!responseStream) {
      const stream = client.makeClientStreamRequest(path, identity, identity, new Metadata(), { deadline }, (err) => done(err));
      stream.write(payload);
      stream.end();
    } else {
      const stream = client.makeBidiStreamRequest(path, identity, identity, new Metadata(), { deadline });
      stream.on('data', () => undefined);
      stream.on('error', (err: ServiceError) => done(err));
      stream.on('end', () => done(null));
      stream.write(payload);
      stream.end();
    }
  });
}

/** Their decoders (protobufjs) read some malformed input leniently; an impossible wire type they refuse. */
const HEALTH_AND_REFLECTION = [
  { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false, garbage: GARBAGE.slice(0, 1) },
  { path: '/grpc.health.v1.Health/Watch', requestStream: false, responseStream: true, garbage: GARBAGE.slice(0, 1) },
  { path: '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', requestStream: true, responseStream: true, garbage: GARBAGE.slice(0, 1) },
  { path: '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo', requestStream: true, responseStream: true, garbage: GARBAGE.slice(0, 1) },
];

function methodsOf(definition: ServiceDefinition) {
  return Object.values(definition).map((m) => ({ path: m.path, requestStream: m.requestStream, responseStream: m.responseStream, garbage: GARBAGE }));
}

describe('garbage request bytes', () => {
  const services: Array<[string, () => string, ServiceDefinition]> = [
    ['auth', () => stack.services.auth.address, authv1.AuthServiceService],
    ['accounts', () => stack.services.accounts.address, accountsv1.AccountsServiceService],
    ['accounts (trading)', () => stack.services.accounts.address, tradingv1.TradingServiceService],
    ['webhooks', () => stack.services.webhooks.address, webhooksv1.WebhooksServiceService],
  ];

  it.each(services)('are INVALID_ARGUMENT invalid_request on every method of %s, health and reflection included', async (_name, address, definition) => {
    const client = new Client(address(), credentials.createInsecure());
    try {
      for (const method of [...methodsOf(definition), ...HEALTH_AND_REFLECTION]) {
        for (const payload of method.garbage) {
          const outcome = await call(client, method.path, method.requestStream, method.responseStream, payload);
          expect([method.path, outcome]).toEqual([method.path, { code: status.INVALID_ARGUMENT, apiCode: 'invalid_request' }]);
        }
      }
    } finally {
      client.close();
    }
  });
});
