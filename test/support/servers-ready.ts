/**
 * Jest's global set-up for the projects whose suites talk to PostgreSQL and Redis (jest.config.js):
 * when either is not running where the tests look, one message says so and the run stops, instead
 * of every suite failing on `connect ECONNREFUSED`. A relative import: module names are not mapped
 * here.
 */
import { unreachableTestServers } from '../../services/kit/src/testing/servers-check';

export default async function serversReady(): Promise<void> {
  const problem = await unreachableTestServers();
  if (!problem) return;
  process.stderr.write(`\n${problem}\n\n`);
  process.exit(1);
}
