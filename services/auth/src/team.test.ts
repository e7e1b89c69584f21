import { randomUUID } from 'node:crypto';
import { authv1 } from '@propdesk/proto';
import { createOrg, rejection, startAuthForTest } from './test/harness';

const PASSWORD = 'correct horse battery';
const { ROLE_OWNER, ROLE_ADMIN, ROLE_MEMBER, ROLE_UNSPECIFIED } = authv1.Role;

describe('auth service: team management', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;

  beforeAll(async () => {
    auth = await startAuthForTest();
  });
  afterAll(async () => {
    await auth.stop();
  });

  async function team(): Promise<{ orgId: string; add: (email: string, role: authv1.Role) => Promise<authv1.User> }> {
    const orgId = (await createOrg(auth.client)).id;
    const add = async (email: string, role: authv1.Role) => {
      const { user } = await auth.client.call.createUser({ organizationId: orgId, email, password: PASSWORD, role });
      if (!user) throw new Error('no user');
      return user;
    };
    return { orgId, add };
  }

  const login = async (email: string) => (await auth.client.call.login({ email, password: PASSWORD, clientIp: '10.9.0.1' })).sessionToken;

  it('lists the users of an organization in email order, paged, and nobody of another organization', async () => {
    const { orgId, add } = await team();
    await add('zoe@team.example', ROLE_MEMBER);
    await add('adam@team.example', ROLE_OWNER);
    await add('mia@team.example', ROLE_ADMIN);
    const other = await team();
    await other.add('stranger@other.example', ROLE_OWNER);

    const first = await auth.client.call.listUsers({ organizationId: orgId, pageSize: 2, pageToken: '' });
    expect(first.users.map((u) => [u.email, u.role])).toEqual([
      ['adam@team.example', ROLE_OWNER],
      ['mia@team.example', ROLE_ADMIN],
    ]);
    expect(first.nextPageToken).not.toBe('');
    const second = await auth.client.call.listUsers({ organizationId: orgId, pageSize: 2, pageToken: first.nextPageToken });
    expect(second.users.map((u) => u.email)).toEqual(['zoe@team.example']);
    expect(second.nextPageToken).toBe('');

    expect(await rejection(auth.client.call.listUsers({ organizationId: other.orgId, pageSize: 2, pageToken: first.nextPageToken }))).toMatchObject({
      code: 'invalid_cursor',
    });
  });

  it('changes a role, and the session of that user sees the new role on its next request', async () => {
    const { orgId, add } = await team();
    await add('owner@roles.example', ROLE_OWNER);
    const admin = await add('admin@roles.example', ROLE_ADMIN);
    const token = await login('admin@roles.example');

    const { user } = await auth.client.call.updateUserRole({ organizationId: orgId, userId: admin.id, role: ROLE_MEMBER });
    expect(user).toMatchObject({ id: admin.id, role: ROLE_MEMBER });
    expect((await auth.client.call.getSession({ sessionToken: token })).user?.role).toBe(ROLE_MEMBER);

    expect(await rejection(auth.client.call.updateUserRole({ organizationId: orgId, userId: admin.id, role: ROLE_UNSPECIFIED }))).toMatchObject({
      code: 'invalid_request',
      param: 'role',
    });
  });

  it('never demotes or removes the last owner (conflict), but does once another owner exists', async () => {
    const { orgId, add } = await team();
    const first = await add('first@owners.example', ROLE_OWNER);
    expect(await rejection(auth.client.call.updateUserRole({ organizationId: orgId, userId: first.id, role: ROLE_ADMIN }))).toMatchObject({
      code: 'conflict',
    });
    expect(await rejection(auth.client.call.deleteUser({ organizationId: orgId, userId: first.id }))).toMatchObject({ code: 'conflict' });

    const second = await add('second@owners.example', ROLE_OWNER);
    await auth.client.call.updateUserRole({ organizationId: orgId, userId: first.id, role: ROLE_ADMIN });
    expect(await rejection(auth.client.call.deleteUser({ organizationId: orgId, userId: second.id }))).toMatchObject({ code: 'conflict' });
  });

  it('two owners demoting each other at once leave exactly one owner', async () => {
    const { orgId, add } = await team();
    const a = await add('a@race.example', ROLE_OWNER);
    const b = await add('b@race.example', ROLE_OWNER);
    const outcomes = await Promise.allSettled([
      auth.client.call.updateUserRole({ organizationId: orgId, userId: a.id, role: ROLE_MEMBER }),
      auth.client.call.deleteUser({ organizationId: orgId, userId: b.id }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const { users } = await auth.client.call.listUsers({ organizationId: orgId, pageSize: 10, pageToken: '' });
    expect(users.filter((u) => u.role === ROLE_OWNER)).toHaveLength(1);
  });

  it("removing a user ends that user's sessions at once and frees the email", async () => {
    const { orgId, add } = await team();
    await add('boss@remove.example', ROLE_OWNER);
    const leaver = await add('leaver@remove.example', ROLE_MEMBER);
    const token = await login('leaver@remove.example');
    const { user } = await auth.client.call.deleteUser({ organizationId: orgId, userId: leaver.id });
    expect(user?.email).toBe('leaver@remove.example');
    expect(await rejection(auth.client.call.getSession({ sessionToken: token }))).toMatchObject({ code: 'invalid_session' });
    expect(await rejection(auth.client.call.login({ email: 'leaver@remove.example', password: PASSWORD, clientIp: '10.9.0.2' }))).toMatchObject({
      code: 'invalid_credentials',
    });
    await add('leaver@remove.example', ROLE_ADMIN);
  });

  it('a user of another organization, an unknown id or a malformed one is not_found', async () => {
    const mine = await team();
    const theirs = await team();
    const stranger = await theirs.add('someone@theirs.example', ROLE_MEMBER);
    for (const userId of [stranger.id, randomUUID(), 'not-a-uuid']) {
      expect(await rejection(auth.client.call.deleteUser({ organizationId: mine.orgId, userId }))).toMatchObject({ code: 'not_found' });
      expect(await rejection(auth.client.call.updateUserRole({ organizationId: mine.orgId, userId, role: ROLE_OWNER }))).toMatchObject({
        code: 'not_found',
      });
    }
  });
});
