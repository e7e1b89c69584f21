/**
 * The gateway's list stream against a real in-test gRPC AccountsService double: answers find their
 * requests by id in any order; what a call leaves unanswered, and everything while the service has
 * no StreamListAccounts, goes through the fallback; a request without an answer fails at its
 * deadline; calls are replaced after their share of messages.
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { accountsv1 } from '@propdesk/proto';
import { createLogger, createServiceClient, Mode, startGrpcServer, type ServiceClient, type StartedGrpcServer } from '@propdesk/kit';
import { implementServiceDouble } from '@propdesk/kit/testing';
import type { ItemOutcome } from './coalesce';
import { createListStream, LIST_STREAM_DEFAULTS } from './list-stream';

type Call = ServerDuplexStream<accountsv1.StreamListAccountsRequest, accountsv1.StreamListAccountsResponse>;
type Outcomes = Array<ItemOutcome<accountsv1.ListAccountsResponse>>;

const logger = createLogger('test', { level: 'silent' });

/** How the double's StreamListAccounts behaves for the test running. */
let behave: (call: Call, message: accountsv1.StreamListAccountsRequest) => void = () => undefined;
let callsOpened = 0;
/** Whether the double ends a call when the gateway half-closes it (the service does, once it has answered). */
let endOnHalfClose = true;
let grpc: StartedGrpcServer;
let accounts: ServiceClient<accountsv1.AccountsServiceClient>;

const page = (organizationId: string): accountsv1.ListAccountsResponse => ({ accounts: [], nextPageToken: '', accountsJson: Buffer.from(`["${organizationId}"]`) });
const request = (organizationId: string): accountsv1.ListAccountsRequest => ({
  organizationId,
  mode: Mode.MODE_LIVE,
  pageSize: 50,
  pageToken: '',
  status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED,
  jsonView: true,
});
const answer = (message: accountsv1.StreamListAccountsRequest): accountsv1.StreamListAccountsResponse => ({
  id: message.id,
  results: message.requests.map((r) => ({ response: page(r.organizationId) })),
});
const rendered = (outcomes: Outcomes) => outcomes.map((o) => (o.ok ? Buffer.from(o.response.accountsJson).toString() : `error ${(o.error as { code: string }).code}`));
const fallbackOf = (label: string, calls: string[]) => async (): Promise<Outcomes> => {
  calls.push(label);
  return [{ ok: true, response: page(`fallback ${label}`) }];
};

beforeAll(async () => {
  const double = implementServiceDouble<accountsv1.AccountsServiceServer>(accountsv1.AccountsServiceService, logger, {
    streamListAccounts(call: Call) {
      callsOpened += 1;
      call.on('data', (message: accountsv1.StreamListAccountsRequest) => behave(call, message));
      call.on('end', () => {
        if (endOnHalfClose) call.end();
      });
    },
  });
  grpc = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: [{ name: 'propdesk.accounts.v1.AccountsService', definition: accountsv1.AccountsServiceService, implementation: double }],
  });
  accounts = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, grpc.address, 5000);
});

afterAll(async () => {
  accounts?.close();
  await grpc?.shutdown(1000);
});

beforeEach(() => {
  callsOpened = 0;
  endOnHalfClose = true;
  behave = (call, message) => call.write(answer(message));
});

it('matches answers to their requests by id, whatever their order', async () => {
  const held: accountsv1.StreamListAccountsRequest[] = [];
  // The first two are answered in reverse order once the third arrives.
  behave = (call, message) => {
    held.push(message);
    if (held.length === 3) for (const m of held.reverse()) call.write(answer(m));
  };
  const stream = createListStream(accounts, { ...LIST_STREAM_DEFAULTS, streams: 1 });
  const unused: string[] = [];
  const sent = ['a', 'b', 'c'].map((org) => stream.send([request(org), request(`${org}2`)], [], 5000, fallbackOf(org, unused)));
  expect((await Promise.all(sent)).map(rendered)).toEqual([
    ['["a"]', '["a2"]'],
    ['["b"]', '["b2"]'],
    ['["c"]', '["c2"]'],
  ]);
  expect(unused).toEqual([]);
  expect(callsOpened).toBe(1);
  stream.close();
});

it('sends through the fallback what a call left unanswered when it ended', async () => {
  behave = (call, message) => {
    if (message.requests[0].organizationId === 'answered') call.write(answer(message));
    else call.end();
  };
  const stream = createListStream(accounts, { ...LIST_STREAM_DEFAULTS, streams: 1, backoffMs: 0 });
  const fallbacks: string[] = [];
  expect(rendered(await stream.send([request('answered')], [], 5000, fallbackOf('x', fallbacks)))).toEqual(['["answered"]']);
  expect(rendered(await stream.send([request('dropped')], [], 5000, fallbackOf('dropped', fallbacks)))).toEqual(['["fallback dropped"]']);
  expect(fallbacks).toEqual(['dropped']);
  // The next message opens a new call.
  expect(rendered(await stream.send([request('answered')], [], 5000, fallbackOf('y', fallbacks)))).toEqual(['["answered"]']);
  expect(callsOpened).toBe(2);
  stream.close();
});

it('fails a request at its deadline when no answer comes, as a missed deadline of a call does', async () => {
  behave = () => undefined;
  const stream = createListStream(accounts, { ...LIST_STREAM_DEFAULTS, streams: 1 });
  const started = Date.now();
  await expect(stream.send([request('silent')], [], 300, fallbackOf('silent', []))).rejects.toMatchObject({ code: 'unavailable' });
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  stream.close();
});

it('replaces a call after its share of messages, and spreads messages over its calls', async () => {
  const stream = createListStream(accounts, { ...LIST_STREAM_DEFAULTS, streams: 2, maxMessages: 3 });
  for (let i = 0; i < 12; i += 1) expect(rendered(await stream.send([request(`n${i}`)], [], 5000, fallbackOf('x', [])))).toEqual([`["n${i}"]`]);
  // Two calls at a time, each replaced after 3 messages: 12 messages took 4 calls.
  expect(callsOpened).toBe(4);
  stream.close();
});

it('cancels every call it has open when closed, a retired one still answering too', async () => {
  // A retired call whose answer is still coming: the double keeps it open.
  endOnHalfClose = false;
  const cancelled: string[] = [];
  const held: Array<{ call: Call; message: accountsv1.StreamListAccountsRequest }> = [];
  behave = (call, message) => {
    call.on('cancelled', () => cancelled.push(message.requests[0].organizationId));
    if (message.requests[0].organizationId === 'slow') held.push({ call, message });
    else call.write(answer(message));
  };
  const stream = createListStream(accounts, { ...LIST_STREAM_DEFAULTS, streams: 1, maxMessages: 1 });
  const fallbacks: string[] = [];
  // The first call takes the slow request and is retired by the next message, which opens a second.
  const slow = stream.send([request('slow')], [], 5000, fallbackOf('slow', fallbacks));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(rendered(await stream.send([request('quick')], [], 5000, fallbackOf('quick', fallbacks)))).toEqual(['["quick"]']);
  expect(callsOpened).toBe(2);
  stream.close();
  // The slow request goes through the fallback; both calls were cancelled.
  expect(rendered(await slow)).toEqual(['["fallback slow"]']);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(cancelled.sort()).toEqual(['quick', 'slow']);
  expect(held).toHaveLength(1);
});

it('goes through the fallback, without opening a call each time, when the service has no StreamListAccounts', async () => {
  const older = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: [
      {
        name: 'propdesk.accounts.v1.AccountsService',
        definition: accountsv1.AccountsServiceService,
        implementation: implementServiceDouble<accountsv1.AccountsServiceServer>(accountsv1.AccountsServiceService, logger, {}),
      },
    ],
  });
  const client = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, older.address, 5000);
  const opened: string[] = [];
  const raw = client.raw.streamListAccounts.bind(client.raw);
  client.raw.streamListAccounts = ((...args: Parameters<typeof raw>) => {
    opened.push('call');
    return raw(...args);
  }) as typeof client.raw.streamListAccounts;
  try {
    const stream = createListStream(client);
    const fallbacks: string[] = [];
    for (let i = 0; i < 5; i += 1) expect(rendered(await stream.send([request('x')], [], 5000, fallbackOf(String(i), fallbacks)))).toEqual([`["fallback ${i}"]`]);
    expect(fallbacks).toEqual(['0', '1', '2', '3', '4']);
    expect(opened).toEqual(['call']);
    stream.close();
  } finally {
    client.close();
    await older.shutdown(1000);
  }
});
