import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, Mode } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { createOrg, rejection, startAuthForTest } from './test/harness';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn().catch(() => undefined);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('auth service: abuse and secrets', () => {
  const lines: string[] = [];
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    auth = await startAuthForTest({ LOGIN_MAX_FAILURES_PER_EMAIL: '100', LOGIN_MAX_FAILURES_PER_IP: '1000' }, undefined, createLogger('auth', { level: 'trace', destination: sink }));
  });
  afterAll(async () => {
    await auth.stop();
  });

  it('never writes a password, session token or API key to the log, even at trace level', async () => {
    const org = await createOrg(auth.client);
    const password = 'Sup3r-secret-passphrase';
    await auth.client.call.createUser({ organizationId: org.id, email: 'sec@example.com', password, role: authv1.Role.ROLE_OWNER });
    const { sessionToken } = await auth.client.call.login({ email: 'sec@example.com', password, clientIp: '203.0.113.1' });
    await rejection(auth.client.call.login({ email: 'sec@example.com', password: `${password}-wrong`, clientIp: '203.0.113.1' }));
    await auth.client.call.getSession({ sessionToken });
    const { token } = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'k', scopes: ['accounts:read'] });
    await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
    await auth.client.call.logout({ sessionToken });
    const log = lines.join('');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [password, sessionToken, token, token.slice(9)]) expect(log).not.toContain(secret);
  });

  it('an unknown email costs a password hash too, so timing does not reveal which emails exist', async () => {
    const org = await createOrg(auth.client);
    await auth.client.call.createUser({ organizationId: org.id, email: 'known@example.com', password: 'right-password', role: authv1.Role.ROLE_MEMBER });
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      unknown.push(await timed(() => auth.client.call.login({ email: `ghost${i}@example.com`, password: 'wrong-password', clientIp: '203.0.113.2' })));
      wrong.push(await timed(() => auth.client.call.login({ email: 'known@example.com', password: 'wrong-password', clientIp: '203.0.113.2' })));
    }
    // lenient: the machine is shared; without the dummy hash an unknown email answers several times faster
    expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.5);
  });

  it('does not answer differently for a revoked key and an unknown one', async () => {
    const org = await createOrg(auth.client);
    const { apiKey, token } = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'r', scopes: [] });
    await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    const revoked = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(token) }));
    const unknown = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(`${token}x`) }));
    expect(revoked).toEqual(unknown);
  });
});
