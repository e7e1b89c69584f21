import { randomUUID } from 'node:crypto';
import { AppError, createLogger, createServiceClient, Mode, QueryTypes } from '@propdesk/kit';
import { accountsv1, authv1 } from '@propdesk/proto';
import { accountsConfigSchema } from '../config';
import type { AccountsDeps } from '../deps';
import { startHarness, type Harness } from '../test/harness';
import { recoverProvisioning } from './recover-provisioning';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ PROVISIONING_STALE_AFTER_MS: '0', PROVISIONING_RECOVERY_INTERVAL_MS: '600000' });
});
afterAll(async () => {
  await h?.close();
});

async function countAccounts(org: string): Promise<number> {
  const rows = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM accounts WHERE organization_id = :org', {
    replacements: { org },
    type: QueryTypes.SELECT,
  });
  return Number(rows[0].n);
}

async function intentStatuses(org: string): Promise<string[]> {
  const rows = await h.sql.query<{ status: string }>('SELECT status FROM provisioning_intents WHERE organization_id = :org ORDER BY created_at', {
    replacements: { org },
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.status);
}

describe('provisioning accounts against credits', () => {
  it('creates the accounts unassigned with the program terms frozen, spending one credit each', async () => {
    const org = h.newOrg(10);
    const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 3, program: '', initialBalance: 0 });
    expect(accounts).toHaveLength(3);
    expect(h.auth.credits(org)).toBe(7);
    for (const a of accounts) {
      expect(a).toMatchObject({
        organizationId: org,
        status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
        program: 'standard',
        currency: 'USD',
        initialBalance: 100000,
        balance: 100000,
        equity: 100000,
        peakEquity: 100000,
      });
      expect(a.traderId).toBeUndefined();
    }
    const numbers = accounts.map((a) => Number(a.number));
    expect(new Set(numbers).size).toBe(3);
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
    const [terms] = await h.sql.query<{ terms: Record<string, unknown> }>('SELECT terms FROM accounts WHERE number = :n', {
      replacements: { n: numbers[0] },
      type: QueryTypes.SELECT,
    });
    expect(terms.terms).toMatchObject({ maxDailyLossPct: 5, maxTotalLossPct: 10, totalLossMode: 'static', profitTargetPct: 10, minTradingDays: 4 });
    expect(await intentStatuses(org)).toEqual(['confirmed']);
    expect([...h.auth.reservations.values()].filter((r) => r.org === org).map((r) => r.status)).toEqual(['confirmed']);
  });

  it('stores the executor password sealed, never in clear', async () => {
    const org = h.newOrg(1);
    const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'swing', initialBalance: 25000.5 });
    expect(accounts[0]).toMatchObject({ program: 'swing', initialBalance: 25000.5 });
    const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: accounts[0].number });
    expect(credentials?.password).toMatch(/^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9]).{16,}$/);
    const [row] = await h.sql.query<{ executor_password_sealed: string }>('SELECT executor_password_sealed FROM accounts WHERE number = :n', {
      replacements: { n: accounts[0].number },
      type: QueryTypes.SELECT,
    });
    expect(row.executor_password_sealed).not.toContain(credentials?.password);
  });

  it('when credits are short, answers insufficient_credits and creates nothing', async () => {
    const org = h.newOrg(2);
    await expect(h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 3, program: '', initialBalance: 0 })).rejects.toMatchObject({
      code: 'insufficient_credits',
    });
    expect(await countAccounts(org)).toBe(0);
    expect(h.auth.credits(org)).toBe(2);
    expect(await intentStatuses(org)).toEqual(['aborted']);
  });

  it('never spends more credits than there are under concurrent requests', async () => {
    const org = h.newOrg(10);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 3, program: '', initialBalance: 0 })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBe(3);
    expect(await countAccounts(org)).toBe(9);
    expect(h.auth.credits(org)).toBe(1);
  });

  it.each([
    [{ count: 0 }, 'count'],
    [{ count: 101 }, 'count'],
    [{ count: 1, program: 'nope' }, 'program'],
    [{ count: 1, initialBalance: -5 }, 'initial_balance'],
    [{ count: 1, initialBalance: 10_000_001 }, 'initial_balance'],
  ])('refuses %j naming %s', async (fields, param) => {
    const org = h.newOrg(1000);
    const err = await h.api
      .createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, program: '', initialBalance: 0, ...fields })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_request', param });
    expect(h.auth.credits(org)).toBe(1000);
  });

  it('appends account.created per account and credits.low once when the threshold is crossed', async () => {
    const org = h.newOrg(12, 10);
    await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 2, program: '', initialBalance: 0 });
    await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: '', initialBalance: 0 });
    await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: '', initialBalance: 0 });
    const { events } = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 100, pageToken: '', type: '' });
    expect(events.filter((e) => e.type === 'account.created')).toHaveLength(4);
    const low = events.filter((e) => e.type === 'credits.low');
    expect(low).toHaveLength(1);
    expect(low[0].data).toEqual({ remaining: 9, threshold: 10 });
  });

  describe('when something fails in the middle', () => {
    it('a failed confirmation keeps the accounts and recovery confirms the reservation', async () => {
      const org = h.newOrg(5);
      h.auth.failConfirm = true;
      try {
        const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 2, program: '', initialBalance: 0 });
        expect(accounts).toHaveLength(2);
      } finally {
        h.auth.failConfirm = false;
      }
      expect(await intentStatuses(org)).toEqual(['done']);
      await runRecovery();
      expect(await intentStatuses(org)).toEqual(['confirmed']);
      expect(h.auth.credits(org)).toBe(3);
    });

    it('a lost reserve answer is cancelled, so no credit is spent', async () => {
      const org = h.newOrg(5);
      h.auth.failAfterReserve = true;
      try {
        await expect(h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 2, program: '', initialBalance: 0 })).rejects.toMatchObject({
          code: 'unavailable',
        });
      } finally {
        h.auth.failAfterReserve = false;
      }
      expect(await countAccounts(org)).toBe(0);
      expect(h.auth.credits(org)).toBe(5);
      expect(await intentStatuses(org)).toEqual(['aborted']);
    });

    it('a transaction that fails cancels the reservation: no accounts, no spent credit', async () => {
      const org = h.newOrg(5);
      // The database refuses this organization's rows mid-transaction.
      await h.sql.query(`
        CREATE FUNCTION refuse_org() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.organization_id = '${org}' THEN RAISE EXCEPTION 'simulated failure'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse_org BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_org();`);
      try {
        await expect(h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 2, program: '', initialBalance: 0 })).rejects.toMatchObject({
          code: 'internal_error',
        });
      } finally {
        await h.sql.query('DROP TRIGGER refuse_org ON events; DROP FUNCTION refuse_org();');
      }
      expect(await countAccounts(org)).toBe(0);
      expect(h.auth.credits(org)).toBe(5);
      expect(await intentStatuses(org)).toEqual(['aborted']);
    });

    it('a crash after reserving (intent left pending) is cancelled by recovery', async () => {
      const org = h.newOrg(5);
      const reservationId = randomUUID();
      // What a process dying right after ReserveCredits leaves behind.
      await h.sql.query("INSERT INTO provisioning_intents (id, organization_id, count, created_at) VALUES (:id, :org, 3, now() - interval '1 minute')", {
        replacements: { id: reservationId, org },
      });
      const authClient = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, h.auth.address);
      try {
        await authClient.call.reserveCredits({ organizationId: org, count: '3', reservationId });
      } finally {
        authClient.close();
      }
      expect(h.auth.credits(org)).toBe(2);
      await runRecovery();
      expect(h.auth.credits(org)).toBe(5);
      expect(await intentStatuses(org)).toEqual(['aborted']);
      expect(await countAccounts(org)).toBe(0);
    });
  });
});

/** Runs one recovery pass through the service's own code against its database. */
async function runRecovery(): Promise<void> {
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, h.auth.address);
  try {
    // Recovery uses only these; the rest of the wiring belongs to the running service.
    const deps = {
      config: accountsConfigSchema.parse(h.env),
      logger: createLogger('recovery-test', { level: 'silent' }),
      sequelize: h.sql,
      authApi: auth.call,
    } as Pick<AccountsDeps, 'config' | 'logger' | 'sequelize' | 'authApi'> as AccountsDeps;
    await recoverProvisioning(deps);
  } finally {
    auth.close();
  }
}
