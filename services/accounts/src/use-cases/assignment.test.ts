import { Mode, QueryTypes } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function provision(org: string, count: number): Promise<string[]> {
  const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count, program: '', initialBalance: 0 });
  return accounts.map((a) => a.number);
}

async function login(number: string): Promise<string> {
  const org = (await h.sql.query<{ organization_id: string }>('SELECT organization_id FROM accounts WHERE number = :n', {
    replacements: { n: number },
    type: QueryTypes.SELECT,
  }))[0].organization_id;
  const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number });
  const { token } = await h.api.createExecutorSession({ account: number, password: credentials!.password, clientIp: '10.0.0.1' });
  return token;
}

const sessionIsLive = (token: string) => h.api.getExecutorSession({ token }).then(() => true, () => false);

async function eventsOf(org: string, type: string) {
  return (await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 200, pageToken: '', type })).events;
}

describe('assigning traders', () => {
  it('finds the trader by case-insensitive email and keeps an existing name', async () => {
    const org = h.newOrg();
    const [a, b] = await provision(org, 2);
    const first = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Ann Lee', email: 'Ann@Example.com' });
    expect(first.trader).toMatchObject({ name: 'Ann Lee', email: 'Ann@Example.com' });
    expect(first.account?.traderId).toBe(first.trader?.id);
    const second = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: b, name: 'Another Name', email: 'ann@example.COM' });
    expect(second.trader).toEqual(first.trader);
    const created = await h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, name: 'X', email: 'ANN@example.com' });
    expect(created).toEqual({ trader: first.trader, created: false });
  });

  it('when the holder changes, live sessions are revoked and account.assigned is written', async () => {
    const org = h.newOrg();
    const [a] = await provision(org, 1);
    const ann = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Ann', email: 'ann@x.io' });
    const token = await login(a);
    expect(await sessionIsLive(token)).toBe(true);

    await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Ann', email: 'ANN@x.io' });
    expect(await sessionIsLive(token)).toBe(true);
    expect(await eventsOf(org, 'account.assigned')).toHaveLength(1);

    const bob = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Bob', email: 'bob@x.io' });
    expect(await sessionIsLive(token)).toBe(false);
    await expect(h.api.getExecutorSession({ token })).rejects.toMatchObject({ code: 'invalid_session' });
    const assigned = await eventsOf(org, 'account.assigned');
    expect(assigned.map((e) => e.data)).toEqual([
      { account: Number(a), trader_id: ann.trader!.id, previous_trader_id: null },
      { account: Number(a), trader_id: bob.trader!.id, previous_trader_id: ann.trader!.id },
    ]);
  });

  it('unassigning revokes sessions; unassigning again answers as is', async () => {
    const org = h.newOrg();
    const [a] = await provision(org, 1);
    const ann = await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Ann', email: 'ann@x.io' });
    const token = await login(a);
    const { account } = await h.api.unassignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    expect(account?.traderId).toBeUndefined();
    expect(await sessionIsLive(token)).toBe(false);
    const again = await h.api.unassignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    expect(again.account).toEqual(account);
    expect((await eventsOf(org, 'account.assigned')).map((e) => e.data)).toEqual([
      { account: Number(a), trader_id: ann.trader!.id, previous_trader_id: null },
      { account: Number(a), trader_id: null, previous_trader_id: ann.trader!.id },
    ]);
  });

  it('refuses archived and breached accounts with a code that says why', async () => {
    const org = h.newOrg();
    const [a, b] = await provision(org, 2);
    await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    await expect(h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, name: 'Ann', email: 'ann@x.io' })).rejects.toMatchObject({
      code: 'account_archived',
    });
    await h.sql.query("UPDATE accounts SET status = 'breached' WHERE number = :n", { replacements: { n: b } });
    await expect(h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: b, name: 'Ann', email: 'ann@x.io' })).rejects.toMatchObject({
      code: 'account_breached',
    });
    // Nothing half-done: the trader of the refused assignment was not kept.
    expect((await h.api.listTraders({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' })).traders).toEqual([]);
  });

  it.each([
    [{ name: '', email: 'a@b.co' }, 'name'],
    [{ name: 'x'.repeat(201), email: 'a@b.co' }, 'name'],
    [{ name: 'Ann', email: 'not-an-email' }, 'email'],
    [{ name: 'Ann', email: '' }, 'email'],
  ])('refuses %j naming %s', async (body, param) => {
    const org = h.newOrg();
    const [a] = await provision(org, 1);
    await expect(h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number: a, ...body })).rejects.toMatchObject({ code: 'invalid_request', param });
    await expect(h.api.claimAccount({ organizationId: org, mode: Mode.MODE_LIVE, ...body })).rejects.toMatchObject({ code: 'invalid_request', param });
    await expect(h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, ...body })).rejects.toMatchObject({ code: 'invalid_request', param });
  });
});

describe('claiming accounts', () => {
  it('20 concurrent claims get 20 distinct accounts, the lowest-numbered first', async () => {
    const org = h.newOrg();
    const numbers = await provision(org, 25);
    await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: numbers[0] });
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.api.claimAccount({ organizationId: org, mode: Mode.MODE_LIVE, name: `T${i}`, email: `t${i % 7}@x.io` })),
    );
    const claimed = claims.map((c) => c.account!.number);
    expect(new Set(claimed).size).toBe(20);
    expect([...claimed].sort()).toEqual(numbers.slice(1, 21));
    for (const c of claims) expect(c.account?.traderId).toBe(c.trader?.id);
    expect(new Set(claims.map((c) => c.trader!.id)).size).toBe(7);
  });

  it('answers no_unassigned_accounts when none is left (archived ones do not count)', async () => {
    const org = h.newOrg();
    const [a, b] = await provision(org, 2);
    await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    const claim = await h.api.claimAccount({ organizationId: org, mode: Mode.MODE_LIVE, name: 'Ann', email: 'ann@x.io' });
    expect(claim.account?.number).toBe(b);
    await expect(h.api.claimAccount({ organizationId: org, mode: Mode.MODE_LIVE, name: 'Bob', email: 'bob@x.io' })).rejects.toMatchObject({
      code: 'no_unassigned_accounts',
    });
    await expect(h.api.claimAccount({ organizationId: h.newOrg(), mode: Mode.MODE_LIVE, name: 'Bob', email: 'bob@x.io' })).rejects.toMatchObject({
      code: 'no_unassigned_accounts',
    });
  });
});

describe('archiving', () => {
  it('archives once (one event), revokes sessions and keeps the account readable', async () => {
    const org = h.newOrg();
    const [a] = await provision(org, 1);
    const token = await login(a);
    const first = await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    expect(first.account?.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED);
    const second = await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    expect(second.account).toEqual(first.account);
    expect(await eventsOf(org, 'account.archived')).toHaveLength(1);
    expect(await sessionIsLive(token)).toBe(false);
    expect((await h.api.getAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: a })).account).toEqual(first.account);
    const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: a });
    await expect(h.api.createExecutorSession({ account: a, password: credentials!.password, clientIp: '' })).rejects.toMatchObject({
      code: 'account_archived',
    });
  });
});

describe('traders', () => {
  it('lists traders keyset-paged and hides other organizations', async () => {
    const org = h.newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, name: `T${i}`, email: `t${i}@x.io` })).trader!.id);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await h.api.listTraders({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 3, pageToken: token });
      seen.push(...page.traders.map((t) => t.id));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual(ids);
    const other = h.newOrg();
    await expect(h.api.getTrader({ organizationId: other, mode: Mode.MODE_LIVE, traderId: ids[0] })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.getTrader({ organizationId: org, mode: Mode.MODE_LIVE, traderId: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await h.api.getTrader({ organizationId: org, mode: Mode.MODE_LIVE, traderId: ids[0] })).trader?.name).toBe('T0');
  });

  it('finds traders by id or by email whatever its case, only in the organization', async () => {
    const org = h.newOrg();
    const a = (await h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, name: 'Ann', email: 'Ann@Find.io' })).trader!;
    const b = (await h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, name: 'Bob', email: 'bob@find.io' })).trader!;
    await h.api.createTrader({ organizationId: org, mode: Mode.MODE_LIVE, name: 'Cy', email: 'cy@find.io' });
    const found = await h.api.findTraders({ organizationId: org, mode: Mode.MODE_LIVE, ids: [b.id, 'not-a-uuid'], emails: [' ANN@find.io', 'nobody@find.io'] });
    expect(found.traders.map((t) => t.name)).toEqual(['Ann', 'Bob']);
    expect((await h.api.findTraders({ organizationId: org, mode: Mode.MODE_LIVE, ids: [], emails: [] })).traders).toEqual([]);
    expect((await h.api.findTraders({ organizationId: h.newOrg(), mode: Mode.MODE_LIVE, ids: [a.id], emails: ['bob@find.io'] })).traders).toEqual([]);
    await expect(h.api.findTraders({ organizationId: org, mode: Mode.MODE_LIVE, ids: Array.from({ length: 201 }, () => a.id), emails: [] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'ids',
    });
  });
});
