import { Client } from 'pg';
import { testServerUrl } from './test-database';

export interface TestLock {
  release(): Promise<void>;
}

/**
 * A lock between suites that run at the same time in different jest workers: a PostgreSQL
 * advisory lock on the test server, held by a connection of its own (a worker that dies frees
 * it). `shared` holders run together; an `exclusive` holder runs alone. For what the suites share
 * outside PostgreSQL and Redis, e.g. the built panel that `npm start` builds again.
 */
export async function holdTestLock(name: string, mode: 'shared' | 'exclusive'): Promise<TestLock> {
  const client = new Client({ connectionString: testServerUrl(), application_name: `propdesk test lock: ${name}` });
  await client.connect();
  const suffix = mode === 'shared' ? '_shared' : '';
  try {
    await client.query(`SELECT pg_advisory_lock${suffix}(hashtext($1))`, [`propdesk test lock: ${name}`]);
  } catch (err) {
    await client.end();
    throw err;
  }
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= client.end();
      return released;
    },
  };
}

/**
 * services/panel/dist/web, which `npm start` builds again (emptying it first): suites that serve the
 * panel's pages hold this lock shared, a suite that runs `npm start` holds it exclusive until ready.
 */
export const BUILT_PANEL = 'the built panel';
