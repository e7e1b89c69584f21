import { tcpUnreachable } from '../net-probe';
import { testServerUrl } from './test-database';

/** The Redis the tests use: REDIS_URL when set, else the local one (the suites and the servers check). */
export function testRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_URL || 'redis://127.0.0.1:6379';
}

/** A server the tests use, as a message names it (host:port, never its user or password), and why nothing answers there; undefined when something does. */
async function unreachable(url: string, defaultPort: number): Promise<{ address: string; reason: string } | undefined> {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url);
    host = parsed.hostname;
    port = Number(parsed.port || defaultPort);
  } catch {
    return { address: url.replace(/\/\/[^@/]*@/, '//'), reason: 'not a URL' };
  }
  const reason = await tcpUnreachable(host, port, 2000);
  return reason === undefined ? undefined : { address: `${host}:${port}`, reason };
}

/**
 * What the suites that talk to PostgreSQL and Redis need before they start: both answering where
 * the tests look (DATABASE_URL and REDIS_URL, else the local servers). Undefined when they do;
 * otherwise one message that names each missing server, its address and its variable, instead of
 * a thousand tests failing one by one with `connect ECONNREFUSED`.
 */
export async function unreachableTestServers(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const databaseUrl = env.DATABASE_URL ?? testServerUrl();
  const redisUrl = testRedisUrl(env);
  const [database, redis] = await Promise.all([unreachable(databaseUrl, 5432), unreachable(redisUrl, 6379)]);
  const missing = [
    ...(database ? [`  PostgreSQL at ${database.address} (DATABASE_URL): ${database.reason}`] : []),
    ...(redis ? [`  Redis at ${redis.address} (REDIS_URL): ${redis.reason}`] : []),
  ];
  if (missing.length === 0) return undefined;
  return [
    'These tests need PostgreSQL and Redis running, and nothing answers:',
    ...missing,
    'Start them (the README, "Two commands"), or set DATABASE_URL and REDIS_URL to servers that run.',
    'The pure suites alone need neither: npx jest --selectProjects unit',
  ].join('\n');
}
