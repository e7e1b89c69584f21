import { unreachableTestServers } from './servers-check';

describe('unreachableTestServers: what the suites need before they start', () => {
  test('the servers the tests use answer: nothing to say', async () => {
    expect(await unreachableTestServers(process.env)).toBeUndefined();
  });

  test('nothing listening: one message naming each server, its address and its variable, never a password', async () => {
    const message = await unreachableTestServers({ DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/postgres', REDIS_URL: 'redis://:s3cret@127.0.0.1:2' });
    expect(message).toContain('PostgreSQL at 127.0.0.1:1 (DATABASE_URL): ECONNREFUSED');
    expect(message).toContain('Redis at 127.0.0.1:2 (REDIS_URL): ECONNREFUSED');
    expect(message).toContain('npx jest --selectProjects unit');
    expect(message).not.toContain('s3cret');
  });

  test('only the one that is missing is named', async () => {
    const message = await unreachableTestServers({ ...process.env, REDIS_URL: 'redis://127.0.0.1:2' });
    expect(message).toContain('Redis at 127.0.0.1:2 (REDIS_URL)');
    expect(message).not.toContain('PostgreSQL at');
  });
});
