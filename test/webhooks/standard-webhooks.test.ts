/**
 * Issue 14 items 1 and 2 through the REST API: real deliveries of the whole stack verified by the
 * standardwebhooks and svix packages, Stripe's verifier and by hand; secret rotation with an
 * overlap and with immediate expiry through POST /v1/webhooks/{id}/rotate-secret, and its errors.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificate } from '@propdesk/kit/testing';
import { ALL_ACCEPT, NONE_ACCEPT, verdicts } from '../../services/webhooks/src/test/receiver-libraries';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  const org = await stack.createOrg();
  api = client(stack.url, (await stack.createKey(org.id)).token);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function register(path: string): Promise<{ id: string; secret: string }> {
  const res = await api.post<{ id: string; secret: string }>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url(path), events: ['account.created'] } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Sends the endpoint's test event and waits for it to arrive. */
async function testDelivery(id: string, path: string): Promise<ReceivedRequest> {
  const before = receiver.received(path).length;
  const sent = await api.post<{ event_id: string }>('/v1/webhooks/{id}/test', `/v1/webhooks/${id}/test`);
  expect(sent.status).toBe(202);
  const got = await receiver.waitFor(before + 1, path);
  const req = got[got.length - 1];
  expect(req.headers['webhook-id']).toBe(sent.body.event_id);
  return req;
}

function rotate(id: string, body?: unknown) {
  return api.post<{ id: string; secret: string } & ErrorBody>('/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${id}/rotate-secret`, { body });
}

describe('deliveries any Standard Webhooks library verifies', () => {
  it('carries webhook-id, webhook-timestamp and webhook-signature beside section 8 headers, verified by every library', async () => {
    const hook = await register('/std');
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const req = await testDelivery(hook.id, '/std');
    expect(req.headers['webhook-id']).toBe(req.headers['x-service-id']);
    expect(req.headers['webhook-timestamp']).toBe(req.headers['x-service-timestamp']);
    expect(verdicts(req, hook.secret)).toEqual(ALL_ACCEPT);
  });
});

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  it('answers the new secret; deliveries carry both signatures until the previous secret expires, then only the new one', async () => {
    const hook = await register('/rotating');
    const res = await rotate(hook.id, { previous_expires_in: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    const rotatedAt = Date.now();

    const during = await testDelivery(hook.id, '/rotating');
    expect(during.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verdicts(during, res.body.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(during, hook.secret)).toEqual(ALL_ACCEPT);

    await sleep(Math.max(0, rotatedAt + 3000 - Date.now()) + 500);
    const after = await testDelivery(hook.id, '/rotating');
    expect(verdicts(after, res.body.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(after, hook.secret)).toEqual(NONE_ACCEPT);
  });

  it('ends the previous secret at once with previous_expires_in 0, and takes an empty body as the one-day default', async () => {
    const hook = await register('/immediate');
    const res = await rotate(hook.id, { previous_expires_in: 0 });
    expect(res.status).toBe(200);
    const req = await testDelivery(hook.id, '/immediate');
    expect(verdicts(req, res.body.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(req, hook.secret)).toEqual(NONE_ACCEPT);

    const again = await rotate(hook.id);
    expect(again.status).toBe(200);
    const both = await testDelivery(hook.id, '/immediate');
    expect(verdicts(both, again.body.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(both, res.body.secret)).toEqual(ALL_ACCEPT);
  });

  it('refuses out-of-range and non-integer values naming previous_expires_in', async () => {
    const hook = await register('/bad');
    for (const value of [-1, 604_801, 1.5, '60', null]) {
      const res = await rotate(hook.id, { previous_expires_in: value });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'previous_expires_in' });
    }
  });

  it("answers 404 for an unknown or another organization's endpoint, and 403 without accounts:write", async () => {
    const hook = await register('/guarded');
    expect((await rotate('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const other = await stack.createOrg();
    const foreign = client(stack.url, (await stack.createKey(other.id)).token);
    const notFound = await foreign.post<ErrorBody>('/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${hook.id}/rotate-secret`);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    const reader = client(stack.url, (await stack.createKey(other.id, ['accounts:read'])).token);
    const forbidden = await reader.post<ErrorBody>('/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${hook.id}/rotate-secret`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('missing_scope');
  });
});
