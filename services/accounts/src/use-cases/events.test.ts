import type { ClientReadableStream } from '@grpc/grpc-js';
import { createServiceClient, Mode, QueryTypes } from '@propdesk/kit';
import { accountsv1 as accounts } from '@propdesk/proto';
import { start } from '../main';
import type { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const provision = (org: string, count: number) => h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count, program: '', initialBalance: 0 });

/** The organization's whole live feed, as GET /v1/events asks for it. */
const feed = (org: string) => h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', type: '' });

/** A transaction left open holding an event of `org`: a lower position than any written after it. */
async function openTransactionWithEvent(org: string) {
  const tx = await h.sql.transaction();
  await h.sql.query(
    "INSERT INTO events (id, organization_id, type, data) VALUES ('evt_inflight_' || gen_random_uuid(), :org, 'account.archived', '{}'::jsonb)",
    { replacements: { org }, transaction: tx },
  );
  return tx;
}

async function allPositions(): Promise<number[]> {
  const rows = await h.sql.query<{ position: string }>('SELECT position FROM events ORDER BY position', { type: QueryTypes.SELECT });
  return rows.map((r) => Number(r.position));
}

/** Reads the stream from `after` until `stopWhen` says so, then cancels the call (a consumer leaving). */
function consume(after: number, stopWhen: (received: number[]) => boolean, timeoutMs = 10_000): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const received: number[] = [];
    const call: ClientReadableStream<accountsv1.StreamEventsResponse> = h.client.raw.streamEvents({ afterPosition: String(after) });
    const timer = setTimeout(() => {
      call.cancel();
      resolve(received);
    }, timeoutMs);
    call.on('data', (msg: accountsv1.StreamEventsResponse) => {
      received.push(Number(msg.position));
      expect(msg.event?.id).toMatch(/^evt_/);
      if (stopWhen(received)) {
        clearTimeout(timer);
        call.cancel();
        resolve(received);
      }
    });
    call.on('error', (err: { code?: number }) => {
      clearTimeout(timer);
      if (err.code === 1) resolve(received);
      else reject(err);
    });
  });
}

describe('the event feed', () => {
  it('lists an organization’s events keyset-paged, filtered by type, in the seed envelope', async () => {
    const org = h.newOrg();
    const { accounts } = await provision(org, 5);
    await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: accounts[0].number, name: 'Ann', email: 'ann@x.io' });
    await provision(h.newOrg(), 2);
    const seen: accountsv1.Event[] = [];
    let token = '';
    do {
      const page = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: token, type: '' });
      seen.push(...page.events);
      token = page.nextPageToken;
    } while (token);
    expect(seen.map((e) => e.type)).toEqual([...Array(5).fill('account.created'), 'account.assigned']);
    expect(seen[0]).toMatchObject({ organizationId: org, data: { account: Number(accounts[0].number), status: 'active', trader_id: null } });
    expect(seen[0].createdAt).toBeInstanceOf(Date);
    const assigned = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', type: 'account.assigned' });
    expect(assigned.events).toHaveLength(1);
    await expect(h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', type: 'account.exploded' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'type',
    });
  });

  it('a consumer that disconnects and resumes from its last position sees every event in order, no gaps', async () => {
    const org = h.newOrg(10_000);
    await provision(org, 30);
    // Writers keep going while the consumer comes and goes.
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await provision(org, 3);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const received: number[] = [];
    let last = 0;
    for (let round = 0; round < 4; round += 1) {
      const chunk = await consume(last, (r) => r.length >= 25);
      received.push(...chunk);
      last = chunk.length > 0 ? chunk[chunk.length - 1] : last;
    }
    writing = false;
    await writer;
    const expected = await allPositions();
    // Drain the rest once the writer has stopped.
    received.push(...(await consume(last, (r) => r[r.length - 1] === expected[expected.length - 1])));
    expect(received).toEqual(expected);
  });

  it('holds back a higher position until a lower one still in flight commits', async () => {
    const org = h.newOrg();
    const start = (await allPositions()).pop() ?? 0;
    const tx = await openTransactionWithEvent(org);
    await provision(org, 2);
    const whileOpen = await consume(start, () => false, 1500);
    expect(whileOpen).toEqual([]);
    await tx.commit();
    const after = await consume(start, (r) => r.length >= 3);
    expect(after).toEqual([start + 1, start + 2, start + 3]);
  });

  it('a feed read shows every write answered before it: it waits for a lower position still in flight, then lists both in order', async () => {
    const org = h.newOrg();
    const tx = await openTransactionWithEvent(org);
    let page: accountsv1.ListEventsResponse;
    const started = Date.now();
    try {
      await provision(org, 1);
      const read = feed(org);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx.commit();
      page = await read;
    } finally {
      await tx.rollback().catch(() => undefined);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(page.events.map((e) => e.type)).toEqual(['account.archived', 'account.created']);
  });

  it('a transaction that stays open bounds the wait: the read answers within about a second without the rows above it, and lists them once it commits', async () => {
    const org = h.newOrg();
    const tx = await openTransactionWithEvent(org);
    let whileOpen: accountsv1.ListEventsResponse;
    let waited: number;
    try {
      await provision(org, 1);
      const started = Date.now();
      whileOpen = await feed(org);
      waited = Date.now() - started;
      await tx.commit();
    } finally {
      await tx.rollback().catch(() => undefined);
    }
    expect(whileOpen.events).toEqual([]);
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(5_000);
    const after = await feed(org);
    expect(after.events.map((e) => e.type)).toEqual(['account.archived', 'account.created']);
  });

  it('open streams end when the service stops, so shutdown does not wait for them', async () => {
    const second = await start(h.env);
    const client = createServiceClient(accounts.AccountsServiceClient, accounts.AccountsServiceService, second.address);
    try {
      await provision(h.newOrg(), 1);
      const call = client.raw.streamEvents({ afterPosition: '0' });
      // The stream is open once it has carried an event.
      const streaming = new Promise<void>((resolve) => call.once('data', () => resolve()));
      const ended = new Promise<string>((resolve) => {
        call.on('data', () => undefined);
        call.on('end', () => resolve('end'));
        call.on('error', () => resolve('error'));
      });
      await streaming;
      const began = Date.now();
      await second.stop();
      expect(await ended).toBe('end');
      expect(Date.now() - began).toBeLessThan(3000);
    } finally {
      client.close();
    }
  });

  it('refuses a negative after_position', async () => {
    await expect(consume(-1, () => true, 2000)).rejects.toMatchObject({ code: 3 });
  });
});
