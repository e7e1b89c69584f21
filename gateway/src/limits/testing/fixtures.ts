import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

/** A key prefix no other run shares, so parallel runs against one Redis never collide. */
export function uniquePrefix(label: string): string {
  return `test:rl:${label}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under the prefix (the windows would expire anyway; this keeps Redis tidy). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export async function repeat<T>(times: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < times; i += 1) results.push(await fn(i));
  return results;
}
