/**
 * SPEC section 5: the counts hold across every gateway replica (Redis). Two gateway instances
 * share one Redis; a key's reads on both add up to one bucket.
 */
import { testRedisUrl } from '@propdesk/kit/testing';
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    redisUrl: testRedisUrl(),
    gatewayReplicas: 2,
    env: { RATE_LIMIT_READ_PER_MIN: '4' },
  });
});

afterAll(async () => {
  await stack?.stop();
});

it('shares one key\'s read bucket between two gateway replicas', async () => {
  const org = await stack.createOrg();
  const token = (await stack.createKey(org.id)).token;
  const [first, second] = stack.gateways as [string, string];
  const statuses: number[] = [];
  for (const url of [first, second, first, second, first, second]) {
    const res = await client(url, token).get<ErrorBody>('/v1/accounts');
    statuses.push(res.status);
  }
  expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
});
