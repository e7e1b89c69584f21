/**
 * propdesk-conformance, the SDK's bin, run as a process against the real stack: it conforms with
 * and without a webhook receiver (and the receiver got every event, signed), exits non-zero
 * naming the step when a receiver answers 500, and refuses a live key before any request.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '@propdesk/sdk';
import { ALL_SCOPES, startStack, type Stack } from '../support/stack';

/**
 * What `npx propdesk-conformance` runs in the repository (README): the command npm links at
 * `npm ci`, before any build, which loads the built check.
 */
const BIN = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'propdesk-conformance');

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let orgId: string;
let testKey: string;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  orgId = (await stack.createOrg({ paid: false })).id;
  testKey = (await stack.createKey(orgId, ALL_SCOPES, 'conformance', { mode: 'test' })).token;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

function conformance(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 120_000, env: { ...process.env, PROPDESK_API_KEY: '' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const STEPS = ['document', 'program', 'test clock', 'provisioning', 'claim', 'credentials', 'order', 'breach', 'reset', 'pass', 'funded phase', 'payout', 'clock advance', 'events', 'cleanup'];
const stepsOf = (stdout: string) => stdout.split('\n').filter((line) => /^[✓✗] /.test(line)).map((line) => line.slice(2, line.indexOf(':')));

describe('propdesk-conformance', () => {
  it('conforms: one line per step, a summary, exit 0; it leaves nothing behind', async () => {
    const result = await conformance('--base-url', stack.url, '--key', testKey);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(stepsOf(result.stdout)).toEqual(STEPS);
    expect(result.stdout).not.toContain('✗');
    expect(result.stdout.trim().split('\n').pop()).toBe(`conforms: all ${STEPS.length} steps`);
    expect(result.stdout).not.toContain(testKey);
    // Its clock deleted (the accounts archived) and its program archived.
    const clocks = await fetch(`${stack.url}/v1/test_clocks`, { headers: { authorization: `Bearer ${testKey}` } });
    expect(((await clocks.json()) as { data: unknown[] }).data).toEqual([]);
  }, 150_000);

  it('with --webhook-url checks that the receiver acknowledged every event of the run, which it got signed', async () => {
    const url = receiver.url('/integrator');
    const result = await conformance('--base-url', stack.url, '--key', testKey, '--webhook-url', url);
    expect(result.code).toBe(0);
    const steps = stepsOf(result.stdout);
    expect(steps).toEqual(['document', 'webhook endpoint', ...STEPS.slice(1, -1), 'webhooks acknowledged', 'cleanup']);
    const acknowledged = Number(/answered 2xx to all (\d+) events/.exec(result.stdout)?.[1]);
    expect(acknowledged).toBeGreaterThan(10);
    const received = receiver.received('/integrator');
    expect(received.length).toBeGreaterThanOrEqual(acknowledged);
    // Signed both ways (the run's endpoint secret stays with the run: a stranger's does not verify them).
    for (const delivery of received) {
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
      expect(delivery.headers['x-service-signature']).toMatch(/^v1=/);
    }
    expect(() => verifyWebhook(received[0]!.body, received[0]!.headers, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toThrow('invalid signature');
  }, 150_000);

  it('does not conform when the receiver answers 500: exit 1, naming the step, what was expected and what came', async () => {
    receiver.on('/broken', () => ({ status: 500 }));
    const result = await conformance('--base-url', stack.url, '--key', testKey, '--webhook-url', receiver.url('/broken'));
    expect(result.code).toBe(1);
    const failed = result.stdout.split('\n').find((line) => line.startsWith('✗ '));
    expect(failed).toMatch(/^✗ webhooks acknowledged: expected your receiver to acknowledge \S+ evt_\w+ with a 2xx, got HTTP 500/);
    expect(result.stdout.trim().split('\n').pop()).toMatch(/^does not conform: step "webhooks acknowledged" failed/);
  }, 150_000);

  it('does not conform when an answer differs from the document: exit 1 at that step, naming the field', async () => {
    // A proxy in front of the gateway that drops `livemode` from POST /v1/accounts's accounts.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
        const answer = await fetch(`${stack.url}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
        let body = await answer.text();
        if (req.method === 'POST' && req.url === '/v1/accounts' && answer.status === 201) {
          const parsed = JSON.parse(body) as { data: Array<Record<string, unknown>> };
          for (const account of parsed.data) delete account.livemode;
          body = JSON.stringify(parsed);
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await conformance('--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, '--key', testKey);
      expect(result.code).toBe(1);
      const failed = result.stdout.split('\n').find((line) => line.startsWith('✗ '));
      expect(failed).toContain('✗ provisioning: expected');
      expect(failed).toContain('POST /v1/accounts 201: /data/0 must have required property \'livemode\'');
      expect(stepsOf(result.stdout)).toEqual([...STEPS.slice(0, STEPS.indexOf('provisioning') + 1)]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 150_000);

  it('refuses a live key before any request (exit 2)', async () => {
    const live = await stack.createKey(orgId, ALL_SCOPES, 'live');
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const result = await conformance('--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, '--key', live.token);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(requests).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('refusing to run with a live key');
    expect(result.stderr).not.toContain(live.token);
    const usage = await conformance('--key', testKey);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: propdesk-conformance');
  });
});
