/**
 * Issue 14 items 1 and 2 against the real service: deliveries that the standardwebhooks and svix
 * packages, Stripe's verifier and a by-hand check all accept; secret rotation with an overlap
 * (both signatures until the previous secret expires, then only the new one), with immediate
 * expiry, and retries signed with the secrets valid when they are sent; endpoints registered
 * before standard headers existed.
 */
import { Client } from 'pg';
import { AppError, createSecretBox, fromServiceError, Mode } from '@propdesk/kit';
import { startHarness, WEBHOOK_SECRET_KEY, type Harness } from '../test/harness';
import type { ReceivedRequest } from '@propdesk/kit/testing';
import { ALL_ACCEPT, NONE_ACCEPT, verdicts } from '../test/receiver-libraries';
import { verifyWebhook } from '../verify';

let h: Harness;

beforeAll(async () => {
  // Retries 2 s and then 4 s after a failure: room to rotate between attempts on a busy machine.
  h = await startHarness({ WEBHOOK_RETRY_SCHEDULE: '2,4,4' });
});
afterAll(async () => {
  await h?.teardown();
});

async function register(org: string, path: string) {
  const created = await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url(path), events: [] });
  return { id: created.endpoint!.id, secret: created.secret };
}

function rotate(org: string, endpointId: string, previousExpiresInSeconds?: number) {
  return h.client.call.rotateEndpointSecret({ organizationId: org, mode: Mode.MODE_LIVE, endpointId, previousExpiresInSeconds });
}

/** Publishes one event for the organization and waits for its next request on `path`. */
async function deliverOne(org: string, path: string): Promise<ReceivedRequest> {
  const before = h.receiver.received(path).length;
  const { id } = h.accounts.publish({ type: 'account.created', organizationId: org });
  const got = await h.receiver.waitFor(before + 1, path);
  const req = got[got.length - 1];
  expect(req.headers['webhook-id']).toBe(id);
  return req;
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return fromServiceError(err);
  }
  throw new Error('expected the call to fail');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Standard Webhooks headers', () => {
  it('makes every delivery verifiable by standardwebhooks, svix, Stripe and by hand', async () => {
    const org = h.org();
    const { secret } = await register(org, '/standard');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const req = await deliverOne(org, '/standard');
    expect(req.headers['webhook-timestamp']).toBe(req.headers['x-service-timestamp']);
    expect(req.headers['webhook-id']).toBe(req.headers['x-service-id']);
    expect(verdicts(req, secret)).toEqual(ALL_ACCEPT);
    expect(verifyWebhook({ rawBody: req.body, headers: req.headers, secret }).ok).toBe(true);
  });

  it('keeps endpoints registered before standard headers working, the libraries included', async () => {
    const org = h.org();
    const { id } = await register(org, '/legacy');
    // What registration used to store: whsec_ + 32 letters and digits.
    const legacy = 'whsec_Q7r2mXk9PzT4vLw8YbN3cHs6JdF1gAe5';
    const db = new Client({ connectionString: h.db.url });
    await db.connect();
    try {
      await db.query('UPDATE webhooks.endpoints SET secret_sealed = $1 WHERE id = $2', [createSecretBox(WEBHOOK_SECRET_KEY).seal(legacy), id]);
    } finally {
      await db.end();
    }
    const req = await deliverOne(org, '/legacy');
    expect(verdicts(req, legacy)).toEqual(ALL_ACCEPT);
    expect(verifyWebhook({ rawBody: req.body, headers: req.headers, secret: legacy }).ok).toBe(true);

    const rotated = await rotate(org, id, 0);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verdicts(await deliverOne(org, '/legacy'), rotated.secret)).toEqual(ALL_ACCEPT);
  });
});

describe('rotating the secret', () => {
  it('signs with both secrets while the previous one is valid, then with the new one only', async () => {
    const org = h.org();
    const { id, secret: previous } = await register(org, '/overlap');
    const rotated = await rotate(org, id, 3);
    expect(rotated.endpoint?.id).toBe(id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(previous);
    expect(Math.abs(rotated.previousExpiresAt!.getTime() - (Date.now() + 3000))).toBeLessThan(2000);

    const during = await deliverOne(org, '/overlap');
    expect(during.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verdicts(during, rotated.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(during, previous)).toEqual(ALL_ACCEPT);

    await sleep(Math.max(0, rotated.previousExpiresAt!.getTime() - Date.now()) + 200);
    const after = await deliverOne(org, '/overlap');
    expect(after.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verdicts(after, rotated.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(after, previous)).toEqual(NONE_ACCEPT);
  });

  it('ends the previous secret at once with previous_expires_in 0', async () => {
    const org = h.org();
    const { id, secret: previous } = await register(org, '/immediate');
    const rotated = await rotate(org, id, 0);
    expect(rotated.previousExpiresAt).toBeUndefined();
    const req = await deliverOne(org, '/immediate');
    expect(verdicts(req, rotated.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(req, previous)).toEqual(NONE_ACCEPT);
  });

  it('keeps the previous secret for a day by default, and at most two secrets sign', async () => {
    const org = h.org();
    const { id, secret: first } = await register(org, '/default');
    const second = await rotate(org, id);
    expect(Math.abs(second.previousExpiresAt!.getTime() - (Date.now() + 86_400_000))).toBeLessThan(5000);
    const third = await rotate(org, id);
    const req = await deliverOne(org, '/default');
    expect(verdicts(req, third.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(req, second.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(req, first)).toEqual(NONE_ACCEPT);
  });

  it('signs a retry of an older delivery with the secrets valid when it is sent', async () => {
    const org = h.org();
    const { id, secret: previous } = await register(org, '/retried');
    let calls = 0;
    // Fails the first two attempts, accepts the third.
    h.receiver.on('/retried', () => ((calls += 1) <= 2 ? { status: 500 } : { status: 200 }));
    h.accounts.publish({ type: 'account.created', organizationId: org });
    const [first] = await h.receiver.waitFor(1, '/retried');
    expect(verdicts(first, previous)).toEqual(ALL_ACCEPT);

    // The second attempt comes ~2 s after the first, inside the 4 s overlap; the third ~4 s later, after it.
    const rotated = await rotate(org, id, 4);
    const got = await h.receiver.waitFor(3, '/retried', 20_000);
    const [, second, third] = got;
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(verdicts(second, rotated.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(second, previous)).toEqual(ALL_ACCEPT);
    expect(third.receivedAt).toBeGreaterThan(rotated.previousExpiresAt!.getTime());
    expect(verdicts(third, rotated.secret)).toEqual(ALL_ACCEPT);
    expect(verdicts(third, previous)).toEqual(NONE_ACCEPT);
  });

  it('refuses previous_expires_in out of range, naming it', async () => {
    const org = h.org();
    const { id } = await register(org, '/bad-input');
    for (const value of [-1, 604_801]) {
      const err = await rejection(rotate(org, id, value));
      expect({ code: err.code, param: err.param }).toEqual({ code: 'invalid_request', param: 'previous_expires_in' });
    }
  });

  it('answers not_found for an unknown, deleted or foreign endpoint', async () => {
    const org = h.org();
    const { id } = await register(org, '/foreign');
    expect((await rejection(rotate(h.org(), id, 0))).code).toBe('not_found');
    expect((await rejection(rotate(org, '00000000-0000-4000-8000-000000000000', 0))).code).toBe('not_found');
    expect((await rejection(rotate(org, 'not-a-uuid', 0))).code).toBe('not_found');
    await h.client.call.deleteEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: id });
    expect((await rejection(rotate(org, id, 0))).code).toBe('not_found');
  });

  it('stores both secrets sealed, never in clear', async () => {
    const org = h.org();
    const { id, secret: previous } = await register(org, '/sealed');
    const rotated = await rotate(org, id, 600);
    const db = new Client({ connectionString: h.db.url });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT row_to_json(e)::text AS row FROM webhooks.endpoints e WHERE id = $1', [id]);
      const row = String(rows[0].row);
      for (const secret of [previous, rotated.secret]) {
        expect(row).not.toContain(secret);
        expect(row).not.toContain(secret.slice('whsec_'.length));
      }
    } finally {
      await db.end();
    }
  });
});
