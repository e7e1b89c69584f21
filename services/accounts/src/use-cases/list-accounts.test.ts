import { randomUUID } from 'node:crypto';
import { AppError, Mode, toRestAccount } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { listRequest } from '../test/list-requests';

let h: Harness;
let org: string;
beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(100_000);
  for (let i = 0; i < 3; i += 1) await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 100, program: '', initialBalance: 0 });
  await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 20, program: '', initialBalance: 0 });
});
afterAll(async () => {
  await h?.close();
});

const list = (req: Partial<accountsv1.ListAccountsRequest>) =>
  h.api.listAccounts({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED, jsonView: false, ...req });

describe('listing accounts', () => {
  it('renders the same pages as JSON (json_view) as the REST mapping of the messages, cursors included', async () => {
    // Money with cents and one assigned account, so that numbers and both forms of trader_id are
    // rendered.
    await h.sql.query(
      `UPDATE accounts SET equity = 100959.37, peak_equity = 101000.5, balance = 99999.99 WHERE organization_id = :org AND number % 7 = 0`,
      { replacements: { org } },
    );
    const [first] = (await list({ pageSize: 1 })).accounts;
    await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: first.number, name: 'Ann', email: 'ann@example.com' });
    for (const filter of [{}, { assigned: false }, { status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE }]) {
      let token = '';
      let pages = 0;
      do {
        const messages = await list({ ...filter, pageSize: 120, pageToken: token });
        const json = await list({ ...filter, pageSize: 120, pageToken: token, jsonView: true });
        expect(json.accounts).toEqual([]);
        const rendered = JSON.parse(Buffer.from(json.accountsJson).toString('utf8')) as Array<Record<string, unknown>>;
        expect(rendered).toEqual(messages.accounts.map(toRestAccount));
        // Cursors are sealed with a fresh nonce each time: equal positions, not equal strings.
        expect(Boolean(json.nextPageToken)).toBe(Boolean(messages.nextPageToken));
        if (json.nextPageToken) {
          const [fromJson, fromMessages] = await Promise.all([json.nextPageToken, messages.nextPageToken].map((pageToken) => list({ ...filter, pageSize: 1, pageToken })));
          expect(fromJson.accounts).toEqual(fromMessages.accounts);
        }
        token = messages.nextPageToken;
        pages += 1;
      } while (token);
      expect(pages).toBeGreaterThan(1);
    }
  });

  it('pages through 300+ accounts while new ones are created, with no repeats and no gaps', async () => {
    const seen: number[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await list({ pageSize: 37, pageToken: token });
      seen.push(...page.accounts.map((a) => Number(a.number)));
      token = page.nextPageToken;
      pages += 1;
      // Other writers keep provisioning in the middle of the walk.
      if (pages === 3) await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 5, program: '', initialBalance: 0 });
    } while (token);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.length).toBe(325);
  });

  it('defaults to 50 per page and clamps at 200', async () => {
    expect((await list({})).accounts).toHaveLength(50);
    expect((await list({ pageSize: 5000 })).accounts).toHaveLength(200);
    await expect(list({ pageSize: -1 })).rejects.toMatchObject({ code: 'invalid_request', param: 'limit' });
  });

  it('filters by status, assigned and trader', async () => {
    const first = (await list({ pageSize: 3 })).accounts;
    const { trader } = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: first[0].number, name: 'Ann', email: 'ann@example.com' });
    await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: first[1].number, name: 'Ann', email: 'ANN@example.com' });
    await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: first[2].number });

    const assigned = await list({ assigned: true });
    expect(assigned.accounts.map((a) => a.number)).toEqual([first[0].number, first[1].number]);
    const byTrader = await list({ traderId: trader!.id });
    expect(byTrader.accounts.map((a) => a.number)).toEqual([first[0].number, first[1].number]);
    const archived = await list({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED });
    expect(archived.accounts.map((a) => a.number)).toEqual([first[2].number]);
    const unassigned = await list({ assigned: false, pageSize: 200 });
    expect(unassigned.accounts.map((a) => a.number)).not.toContain(first[0].number);
    expect(unassigned.accounts[0].number).toBe(first[2].number);
    const active = await list({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, pageSize: 1 });
    expect(active.accounts[0].number).toBe(first[0].number);
  });

  it('refuses a trader_id that is not a UUID, naming it', async () => {
    await expect(list({ traderId: 'abc' })).rejects.toMatchObject({ code: 'invalid_request', param: 'trader_id' });
  });

  it('refuses a tampered cursor, or one from another organization, list or filter set', async () => {
    const page = await list({ pageSize: 2 });
    const token = page.nextPageToken;
    const forged = Buffer.from(JSON.stringify({ n: 1 })).toString('base64url');
    await expect(list({ pageToken: forged })).rejects.toMatchObject({ code: 'invalid_cursor' });
    const flipped = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    await expect(list({ pageToken: flipped })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(list({ pageToken: 'garbage' })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(list({ pageToken: token, assigned: false })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(list({ pageToken: token, organizationId: h.newOrg(0) })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: token, type: '' })).rejects.toMatchObject({
      code: 'invalid_cursor',
    });
  });

  it('shows an organization only its own accounts; another one is not_found like a missing one', async () => {
    const other = h.newOrg(5);
    const mine = (await list({ pageSize: 1 })).accounts[0];
    expect((await list({ organizationId: other })).accounts).toEqual([]);
    const foreign = await h.api.getAccount({ organizationId: other, mode: Mode.MODE_LIVE, number: mine.number }).catch((e: unknown) => e);
    const missing = await h.api.getAccount({ organizationId: other, mode: Mode.MODE_LIVE, number: '999999999' }).catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(AppError);
    expect(foreign).toEqual(missing);
    expect(foreign).toMatchObject({ code: 'not_found' });
    await expect(h.api.getCredentials({ organizationId: other, mode: Mode.MODE_LIVE, number: mine.number })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.archiveAccount({ organizationId: other, mode: Mode.MODE_LIVE, number: mine.number })).rejects.toMatchObject({ code: 'not_found' });
    expect((await h.api.getAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: mine.number })).account?.number).toBe(mine.number);
  });

  // Non-numeric strings cannot even be encoded as int64 by a client; the gateway refuses them first.
  it.each(['0', '-3', '', '99999999999999999'])('refuses account number %j naming it', async (number) => {
    await expect(h.api.getAccount({ organizationId: org, mode: Mode.MODE_LIVE, number })).rejects.toMatchObject({ code: 'invalid_request', param: 'number' });
  });

  it('refuses an organization id that is not a UUID', async () => {
    await expect(list({ organizationId: 'x' })).rejects.toMatchObject({ code: 'invalid_request', param: 'organization_id' });
    expect(randomUUID()).toBeTruthy();
  });
});

describe('BatchListAccounts', () => {
  const request = (req: Partial<accountsv1.ListAccountsRequest>) => listRequest(org, req);

  /** Cursors are sealed with a fresh nonce each time: compared as present or not. */
  const sealed = (result: { response?: accountsv1.ListAccountsResponse; error?: unknown }) =>
    result.response ? { ...result, response: { ...result.response, nextPageToken: result.response.nextPageToken !== '' } } : result;

  it('answers every request as ListAccounts alone would, in order, each within its own organization', async () => {
    const other = h.newOrg(1_000);
    await h.api.createAccounts({ organizationId: other, mode: Mode.MODE_LIVE, count: 3, program: '', initialBalance: 0 });
    const secondPage = (await list({ pageSize: 20 })).nextPageToken;
    const requests = [
      request({ pageSize: 20 }),
      request({ organizationId: other }),
      request({ pageSize: 20, pageToken: secondPage }),
      request({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, pageSize: 7 }),
      request({ assigned: false, pageSize: 3 }),
      request({ pageSize: 5, jsonView: false }),
      request({ organizationId: other, pageToken: secondPage }),
      request({ pageSize: -1 }),
      request({ organizationId: 'not-a-uuid' }),
      request({ organizationId: randomUUID() }),
    ];
    const batch = await h.api.batchListAccounts({ requests, requestIds: [] });
    expect(batch.results).toHaveLength(requests.length);
    for (const [i, req] of requests.entries()) {
      const alone = await h.api.listAccounts(req).then(
        (response) => ({ response }),
        (err: AppError) => ({ error: { code: err.code, message: err.message, param: err.param ?? '' } }),
      );
      expect({ i, ...sealed(batch.results[i]) }).toEqual({ i, ...sealed(alone) });
    }
    // Spot checks of what the comparison covers.
    const rendered = (i: number) => JSON.parse(Buffer.from(batch.results[i].response?.accountsJson ?? []).toString()) as Array<{ number: number }>;
    expect(rendered(0)).toHaveLength(20);
    expect(rendered(1)).toHaveLength(3);
    expect(rendered(2)[0].number).toBeGreaterThan(rendered(0)[19].number);
    expect(batch.results[5].response?.accounts).toHaveLength(5);
    expect(batch.results[6].error?.code).toBe('invalid_cursor');
    expect(batch.results[7].error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    expect(rendered(9)).toEqual([]);
  });

  it('keeps every request its own page when a batch runs as several statements', async () => {
    const other = h.newOrg(1_000);
    await h.api.createAccounts({ organizationId: other, mode: Mode.MODE_LIVE, count: 2, program: '', initialBalance: 0 });
    // 15 pages of one shape: more than one statement's worth, organizations and sizes interleaved.
    const requests = Array.from({ length: 15 }, (_v, i) => request(i % 3 === 0 ? { organizationId: other } : { pageSize: i + 1 }));
    const batch = await h.api.batchListAccounts({ requests, requestIds: [] });
    for (const [i, req] of requests.entries()) {
      expect({ i, ...sealed(batch.results[i]) }).toEqual({ i, ...sealed({ response: await h.api.listAccounts(req) }) });
      const rendered = JSON.parse(Buffer.from(batch.results[i].response?.accountsJson ?? []).toString()) as unknown[];
      expect(rendered).toHaveLength(i % 3 === 0 ? 2 : i + 1);
    }
  });

  it('takes at most 100 requests per call', async () => {
    await expect(h.api.batchListAccounts({ requests: Array.from({ length: 101 }, () => request({})), requestIds: [] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'requests',
    });
    expect((await h.api.batchListAccounts({ requests: [], requestIds: [] })).results).toEqual([]);
  });
});
