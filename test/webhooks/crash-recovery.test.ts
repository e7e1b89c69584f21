/**
 * Issue 6's crash test against the real accounts service: 1,000 account.created events from real
 * provisioning, the webhooks service running as its own process (dist/main.js) and killed with
 * SIGKILL mid-way, then restarted: every event id arrives at least once, duplicates are identical.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Mode } from '@propdesk/kit';
import { startStack, type Stack } from '../support/stack';
import { generateCertificate, REPOSITORY_ROOT, spawnService, startHttpsReceiver, stopProcess, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '../../services/webhooks/src/verify';
import { createWebhooksClient } from '../../services/webhooks/src/test/webhooks-client';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b', 'services/webhooks'], { cwd: REPOSITORY_ROOT, stdio: 'ignore' });
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '2000' } });
  // The in-process instance makes way for the child process this test kills.
  await stack.stopService('webhooks');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

const spawnWebhooks = () =>
  spawnService(join(REPOSITORY_ROOT, 'services/webhooks/dist/main.js'), { env: { ...stack.env, WEBHOOKS_GRPC_PORT: '0' }, listening: 'webhooks service listening' });

it('SIGKILL of the webhooks process mid-way through 1,000 real events: after a restart every event arrives, duplicates identical', async () => {
  let running = await spawnWebhooks();
  const org = await stack.createOrg({ credits: 2000 });
  const webhooks = createWebhooksClient(running.address);
  const { secret, endpoint } = await webhooks.call.createEndpoint({ organizationId: org.id, mode: Mode.MODE_LIVE, url: receiver.url('/crash'), events: ['account.created'] });
  webhooks.close();
  const numbers = await stack.createAccounts(org.id, 1000);
  expect(numbers).toHaveLength(1000);

  await receiver.waitFor(150, '/crash', 60_000);
  await stopProcess(running.child, 'SIGKILL');
  const beforeRestart = new Set(receiver.received('/crash').map((r) => r.headers['x-service-id'])).size;
  running = await spawnWebhooks();
  try {
    const deadline = Date.now() + 120_000;
    const accountsSeen = () => new Set(receiver.received('/crash').map((r) => (JSON.parse(r.body) as { data: { account: number } }).data.account));
    while (accountsSeen().size < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(beforeRestart).toBeLessThan(1000);
    expect([...accountsSeen()].sort()).toEqual([...numbers].sort());
    const bodiesById = new Map<string, Set<string>>();
    for (const req of receiver.received('/crash')) {
      const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret });
      expect(verified.ok).toBe(true);
      const id = String(req.headers['x-service-id']);
      bodiesById.set(id, (bodiesById.get(id) ?? new Set()).add(req.body));
    }
    expect(bodiesById.size).toBe(1000);
    for (const bodies of bodiesById.values()) expect(bodies.size).toBe(1);
    // The records agree: one delivery per event, every one succeeded.
    const records = createWebhooksClient(running.address);
    const countSucceeded = async () => {
      let succeeded = 0;
      let pageToken = '';
      do {
        const page = await records.call.listDeliveries({ organizationId: org.id, mode: Mode.MODE_LIVE, endpointId: endpoint!.id, pageSize: 200, pageToken, status: 2, eventType: '' });
        succeeded += page.deliveries.length;
        pageToken = page.nextPageToken;
      } while (pageToken);
      return succeeded;
    };
    try {
      // A delivery in flight at the kill stays leased (timeout + 15 s) before it is sent again and recorded.
      let succeeded = await countSucceeded();
      for (let i = 0; i < 160 && succeeded < 1000; i += 1) {
        await new Promise((r) => setTimeout(r, 250));
        succeeded = await countSucceeded();
      }
      expect(succeeded).toBe(1000);
    } finally {
      records.close();
    }
  } finally {
    await stopProcess(running.child, 'SIGTERM');
  }
}, 240_000);
