import { Mode, QueryTypes, sha256Hex } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ EXECUTOR_LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', EXECUTOR_LOGIN_MAX_FAILURES_PER_IP: '5', EXECUTOR_SESSION_TTL_SECONDS: '60' });
});
afterAll(async () => {
  await h?.close();
});

async function newAccount(): Promise<{ org: string; number: string; password: string }> {
  const org = h.newOrg();
  const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: '', initialBalance: 0 });
  const number = accounts[0].number;
  const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number });
  return { org, number, password: credentials!.password };
}

describe('executor credentials and sessions', () => {
  it('logs in with number + password; the token is pfx_exec_ + 40 and only its hash is stored', async () => {
    const { number, password } = await newAccount();
    const before = Date.now();
    const { token, expiresAt } = await h.api.createExecutorSession({ account: number, password, clientIp: '192.0.2.1' });
    expect(token).toMatch(/^pfx_exec_[A-Za-z0-9]{40}$/);
    expect(expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 59_000);
    expect(expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);
    const rows = await h.sql.query<{ token_sha256: string }>('SELECT token_sha256 FROM executor_sessions WHERE account_number = :n', {
      replacements: { n: number },
      type: QueryTypes.SELECT,
    });
    expect(rows.map((r) => r.token_sha256)).toEqual([sha256Hex(token)]);
    const session = await h.api.getExecutorSession({ token });
    expect(session.account?.number).toBe(number);
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a wrong password and an unknown account are the same invalid_credentials', async () => {
    const { number, password } = await newAccount();
    const wrong = await h.api.createExecutorSession({ account: number, password: `${password}x`, clientIp: '192.0.2.2' }).catch((e: unknown) => e);
    const unknown = await h.api.createExecutorSession({ account: '987654321', password, clientIp: '192.0.2.3' }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'invalid_credentials' });
    expect(unknown).toEqual(wrong);
  });

  it('rotation issues a new password and revokes live sessions; the old password stops working', async () => {
    const { org, number, password } = await newAccount();
    const { token } = await h.api.createExecutorSession({ account: number, password, clientIp: '' });
    const { credentials } = await h.api.rotateCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number });
    expect(credentials).toMatchObject({ login: number, server: 'PropDesk-Demo' });
    expect(credentials!.password).not.toBe(password);
    expect((await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number })).credentials).toEqual(credentials);
    await expect(h.api.getExecutorSession({ token })).rejects.toMatchObject({ code: 'invalid_session' });
    await expect(h.api.createExecutorSession({ account: number, password, clientIp: '' })).rejects.toMatchObject({ code: 'invalid_credentials' });
    const fresh = await h.api.createExecutorSession({ account: number, password: credentials!.password, clientIp: '' });
    expect((await h.api.getExecutorSession({ token: fresh.token })).account?.number).toBe(number);
  });

  it('unknown, malformed and expired tokens are invalid_session', async () => {
    const { number, password } = await newAccount();
    const { token } = await h.api.createExecutorSession({ account: number, password, clientIp: '' });
    await h.sql.query("UPDATE executor_sessions SET expires_at = now() - interval '1 second' WHERE token_sha256 = :h", {
      replacements: { h: sha256Hex(token) },
    });
    for (const t of [token, 'pfx_exec_nothing', '', 'x'.repeat(500)]) {
      await expect(h.api.getExecutorSession({ token: t })).rejects.toMatchObject({ code: 'invalid_session' });
    }
  });

  it('refuses breached accounts with account_breached (after the password is right)', async () => {
    const { number, password } = await newAccount();
    await h.sql.query("UPDATE accounts SET status = 'breached' WHERE number = :n", { replacements: { n: number } });
    await expect(h.api.createExecutorSession({ account: number, password, clientIp: '' })).rejects.toMatchObject({ code: 'account_breached' });
    await expect(h.api.createExecutorSession({ account: number, password: 'wrong', clientIp: '' })).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
  });

  it('limits failed logins per account number, even with the right password afterwards', async () => {
    const { number, password } = await newAccount();
    for (let i = 0; i < 3; i += 1) {
      await expect(h.api.createExecutorSession({ account: number, password: 'guess', clientIp: `198.51.100.${i}` })).rejects.toMatchObject({
        code: 'invalid_credentials',
      });
    }
    await expect(h.api.createExecutorSession({ account: number, password, clientIp: '198.51.100.9' })).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it('limits failed logins per client IP across accounts', async () => {
    for (let i = 0; i < 5; i += 1) {
      await expect(h.api.createExecutorSession({ account: String(5_000_000 + i), password: 'guess', clientIp: '203.0.113.7' })).rejects.toMatchObject({
        code: 'invalid_credentials',
      });
    }
    const { number, password } = await newAccount();
    await expect(h.api.createExecutorSession({ account: number, password, clientIp: '203.0.113.7' })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect((await h.api.createExecutorSession({ account: number, password, clientIp: '203.0.113.8' })).token).toMatch(/^pfx_exec_/);
  });
});
