import { randomUUID } from 'node:crypto';
import { authv1 } from '@propdesk/proto';
import { Client } from 'pg';
import { createOrg, rejection, startAuthForTest } from './test/harness';

const PASSWORD = 'correct horse battery';

describe('auth service: panel users, login and sessions', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;
  let orgId: string;

  beforeAll(async () => {
    auth = await startAuthForTest({ LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_IP: '6', SESSION_TTL_SECONDS: '3600' });
    orgId = (await createOrg(auth.client)).id;
  });
  afterAll(async () => {
    await auth.stop();
  });

  const createUser = (email: string, role = authv1.Role.ROLE_ADMIN, password = PASSWORD) =>
    auth.client.call.createUser({ organizationId: orgId, email, password, role });

  it('creates a user with a lowercased email and stores only a salted scrypt hash', async () => {
    const { user } = await createUser('Alice@Example.COM');
    expect(user).toMatchObject({ organizationId: orgId, email: 'alice@example.com', role: authv1.Role.ROLE_ADMIN });
    const pg = new Client({ connectionString: auth.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ password_hash: string }>('SELECT password_hash FROM auth.users WHERE id = $1', [user!.id]);
      expect(rows[0].password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(rows[0].password_hash).not.toContain(PASSWORD);
    } finally {
      await pg.end();
    }
  });

  it('refuses a duplicate email whatever its case, short passwords, bad emails, no role, unknown organizations', async () => {
    await createUser('bob@example.com');
    expect(await rejection(createUser('BOB@example.com'))).toMatchObject({ code: 'conflict' });
    // Surrounding whitespace or a control character is refused, not trimmed away.
    expect(await rejection(createUser(' erin@example.com'))).toMatchObject({ code: 'invalid_request', param: 'email' });
    expect(await rejection(createUser('erin\u0000@example.com'))).toMatchObject({ code: 'invalid_request', param: 'email' });
    expect(await rejection(createUser(`${'e'.repeat(60)}@${'x'.repeat(190)}.com`))).toMatchObject({ code: 'invalid_request', param: 'email' });
    expect(await rejection(createUser('carol@example.com', authv1.Role.ROLE_MEMBER, 'short'))).toMatchObject({
      code: 'invalid_request',
      param: 'password',
    });
    expect(await rejection(createUser('not an email'))).toMatchObject({ code: 'invalid_request', param: 'email' });
    expect(await rejection(createUser('dave@example.com', authv1.Role.ROLE_UNSPECIFIED))).toMatchObject({ code: 'invalid_request', param: 'role' });
    expect(
      await rejection(auth.client.call.createUser({ organizationId: randomUUID(), email: 'x@example.com', password: PASSWORD, role: 1 })),
    ).toMatchObject({ code: 'not_found' });
  });

  it('logs in with any case of the email, returns a pds_ session token, and the session resolves until logout', async () => {
    await createUser('erin@example.com', authv1.Role.ROLE_OWNER);
    const login = await auth.client.call.login({ email: 'ERIN@example.com', password: PASSWORD, clientIp: '10.0.0.1' });
    expect(login.sessionToken).toMatch(/^pds_[A-Za-z0-9]{43}$/);
    expect(login.user).toMatchObject({ email: 'erin@example.com', role: authv1.Role.ROLE_OWNER });
    const ttl = (login.expiresAt!.getTime() - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3601);

    const session = await auth.client.call.getSession({ sessionToken: login.sessionToken });
    expect(session.user?.id).toBe(login.user?.id);

    await auth.client.call.logout({ sessionToken: login.sessionToken });
    await auth.client.call.logout({ sessionToken: login.sessionToken });
    expect(await rejection(auth.client.call.getSession({ sessionToken: login.sessionToken }))).toMatchObject({ code: 'invalid_session' });
    expect(await rejection(auth.client.call.getSession({ sessionToken: 'pds_unknown' }))).toMatchObject({ code: 'invalid_session' });
    expect(await rejection(auth.client.call.getSession({ sessionToken: '' }))).toMatchObject({ code: 'invalid_session' });
  });

  it('an expired session is invalid', async () => {
    await createUser('frank@example.com');
    const login = await auth.client.call.login({ email: 'frank@example.com', password: PASSWORD, clientIp: '10.0.0.2' });
    const pg = new Client({ connectionString: auth.db.url });
    await pg.connect();
    try {
      await pg.query("UPDATE auth.sessions SET expires_at = now() - interval '1 second'");
    } finally {
      await pg.end();
    }
    expect(await rejection(auth.client.call.getSession({ sessionToken: login.sessionToken }))).toMatchObject({ code: 'invalid_session' });
  });

  it('answers the same invalid_credentials for an unknown email and for a wrong password', async () => {
    await createUser('gina@example.com');
    const unknown = await rejection(auth.client.call.login({ email: 'nobody@example.com', password: PASSWORD, clientIp: '10.0.1.1' }));
    const wrong = await rejection(auth.client.call.login({ email: 'gina@example.com', password: 'wrong password', clientIp: '10.0.1.1' }));
    expect(unknown).toMatchObject({ code: 'invalid_credentials' });
    expect(wrong).toMatchObject({ code: 'invalid_credentials' });
    expect(wrong.message).toBe(unknown.message);
  });

  it('limits failures per email: past the limit even the right password is refused with rate_limited', async () => {
    await createUser('hank@example.com');
    for (let i = 0; i < 3; i += 1) {
      expect(
        await rejection(auth.client.call.login({ email: 'hank@example.com', password: `wrong-${i}-password`, clientIp: `10.1.0.${i}` })),
      ).toMatchObject({ code: 'invalid_credentials' });
    }
    expect(await rejection(auth.client.call.login({ email: 'HANK@example.com', password: PASSWORD, clientIp: '10.1.1.1' }))).toMatchObject({
      code: 'rate_limited',
    });
  });

  it('a success clears the email failures', async () => {
    await createUser('ivy@example.com');
    for (let i = 0; i < 2; i += 1) {
      await rejection(auth.client.call.login({ email: 'ivy@example.com', password: 'wrong password', clientIp: '10.2.0.1' }));
    }
    await auth.client.call.login({ email: 'ivy@example.com', password: PASSWORD, clientIp: '10.2.0.1' });
    for (let i = 0; i < 2; i += 1) {
      await rejection(auth.client.call.login({ email: 'ivy@example.com', password: 'wrong password', clientIp: '10.2.0.2' }));
    }
    await auth.client.call.login({ email: 'ivy@example.com', password: PASSWORD, clientIp: '10.2.0.2' });
  });

  it('limits failures per client IP across emails, and parallel guesses cannot slip past the limit', async () => {
    await createUser('jack@example.com');
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rejection(auth.client.call.login({ email: `guess${i}@example.com`, password: 'wrong password', clientIp: '192.0.2.7' })),
      ),
    );
    const checked = attempts.filter((e) => e.code === 'invalid_credentials').length;
    expect(checked).toBeLessThanOrEqual(6);
    expect(attempts.filter((e) => e.code === 'rate_limited').length).toBe(12 - checked);
    // racing attempts are counted conservatively; fill the IP's budget up to the limit
    for (let i = checked; i < 6; i += 1) {
      expect(
        await rejection(auth.client.call.login({ email: `more${i}@example.com`, password: 'wrong password', clientIp: '192.0.2.7' })),
      ).toMatchObject({ code: 'invalid_credentials' });
    }
    expect(await rejection(auth.client.call.login({ email: 'jack@example.com', password: PASSWORD, clientIp: '192.0.2.7' }))).toMatchObject({
      code: 'rate_limited',
    });
    // another IP is not affected
    await auth.client.call.login({ email: 'jack@example.com', password: PASSWORD, clientIp: '192.0.2.8' });
  });
});
