/**
 * StreamListAccounts over real gRPC against the service and its database: each message answered
 * with its id as BatchListAccounts answers it, errors per request, the call open for the next
 * message after a refused one, ended by the service after a half-close and when it stops.
 */
import { Mode } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { listRequest } from '../test/list-requests';

let h: Harness;
let org: string;
beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(1_000);
  await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 30, program: '', initialBalance: 0 });
});
afterAll(async () => {
  await h?.close();
});

const request = (req: Partial<accountsv1.ListAccountsRequest>) => listRequest(org, req);
const numbers = (result: accountsv1.BatchListAccountsResult) =>
  (JSON.parse(Buffer.from(result.response?.accountsJson ?? []).toString()) as Array<{ number: number }>).map((a) => a.number);

/** Opens a call; `answers` collects what comes back, `ended` settles when the service ends it. */
function openStream() {
  const call = h.client.raw.streamListAccounts();
  const answers: accountsv1.StreamListAccountsResponse[] = [];
  const waiters: Array<() => void> = [];
  call.on('data', (m: accountsv1.StreamListAccountsResponse) => {
    answers.push(m);
    for (const w of waiters.splice(0)) w();
  });
  const ended = new Promise<string>((resolve) => {
    call.on('end', () => resolve('end'));
    call.on('error', (err: Error) => resolve(`error ${err.message}`));
  });
  const answered = async (count: number) => {
    while (answers.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const send = (id: string, requests: accountsv1.ListAccountsRequest[]) => call.write({ id, requests, requestIds: [], traceparent: '', tracestate: '' });
  return { call, answers, answered, ended, send };
}

it('answers each message with its id, one result per request as BatchListAccounts does', async () => {
  const s = openStream();
  s.send('7', [request({ pageSize: 10 }), request({ pageToken: 'not-a-cursor' })]);
  s.send('8', [request({ pageSize: 3, status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE }), request({ organizationId: 'not-a-uuid' })]);
  await s.answered(2);
  const byId = new Map(s.answers.map((a) => [a.id, a.results]));
  const batch = await h.api.batchListAccounts({ requests: [request({ pageSize: 10 }), request({ pageSize: 3, status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE })], requestIds: [] });
  expect(numbers(byId.get('7')![0])).toEqual(numbers(batch.results[0]));
  expect(numbers(byId.get('7')![0])).toHaveLength(10);
  expect(byId.get('7')![0].response?.nextPageToken).not.toBe('');
  expect(byId.get('7')![1].error?.code).toBe('invalid_cursor');
  expect(numbers(byId.get('8')![0])).toEqual(numbers(batch.results[1]));
  expect(byId.get('8')![1].error).toMatchObject({ code: 'invalid_request' });
  s.call.end();
  expect(await s.ended).toBe('end');
});

it('refuses a message of more than 100 requests request by request, and answers the next one', async () => {
  const s = openStream();
  s.send('1', Array.from({ length: 101 }, () => request({})));
  s.send('2', [request({ pageSize: 1 })]);
  await s.answered(2);
  const byId = new Map(s.answers.map((a) => [a.id, a.results]));
  expect(byId.get('1')).toHaveLength(101);
  expect(byId.get('1')!.every((r) => r.error?.code === 'invalid_request' && r.error.param === 'requests')).toBe(true);
  expect(numbers(byId.get('2')![0])).toHaveLength(1);
  s.call.end();
  expect(await s.ended).toBe('end');
});

it('ends the call after a half-close only once the answers under way are written', async () => {
  const s = openStream();
  for (let i = 1; i <= 5; i += 1) s.send(String(i), [request({ pageSize: i })]);
  s.call.end();
  expect(await s.ended).toBe('end');
  expect(s.answers.map((a) => a.id).sort()).toEqual(['1', '2', '3', '4', '5']);
});

it('ends open calls when the service stops, which then stops without waiting for them', async () => {
  const s = openStream();
  s.send('1', [request({ pageSize: 2 })]);
  await s.answered(1);
  const started = Date.now();
  await h.service.stop();
  expect(await s.ended).toBe('end');
  expect(Date.now() - started).toBeLessThan(5_000);
});
