import { tcpUnreachable } from '../net-probe';
import { testServerUrl } from './test-database';

/** The Redis the tests use: REDIS_URL when set, else the local one. */
export function testRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_URL || 'redis://127.0.0.1:6379';
}

/** Why nothing answers at the URL's host and port; undefined when something does. */
function unreachable(url: string, defaultPort: number): Promise<string | undefined> {
  try {
    const parsed = new URL(url);
    return tcpUnreachable(parsed.hostname, Number(parsed.port || defaultPort), 2000);
  } catch {
    return Promise.resolve('not a URL');
  }
}

/** host:port of a URL for a message, never its user or password. */
function address(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || defaultPort}`;
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
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
    ...(database ? [`  PostgreSQL at ${address(databaseUrl, 5432)} (DATABASE_URL): ${database}`] : []),
    ...(redis ? [`  Redis at ${address(redisUrl, 6379)} (REDIS_URL): ${redis}`] : []),
  ];
  if (missing.length === 0) return undefined;
  return [
    'These tests need PostgreSQL and Redis running, and nothing answers:',
    ...missing,
    'Start them (the README, "Two commands"), or set DATABASE_URL and REDIS_URL to servers that run.',
    'The pure suites alone need neither: npx jest --selectProjects unit',
  ].join('\n');
}
