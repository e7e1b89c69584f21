/**
 * webhooks.verify of @propdesk/sdk on real deliveries to a local HTTPS receiver, cross-checked with
 * the standardwebhooks and svix libraries: a delivery verifies by either signature scheme (each
 * alone), with either secret while a rotation overlaps; a changed body, another secret and a stale
 * timestamp are refused, by the SDK and the libraries alike.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { EVENT_TYPES } from '@propdesk/kit';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificate } from '@propdesk/kit/testing';
import { PropDesk, verifyWebhook, WebhookVerificationError } from '@propdesk/sdk';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let pd: PropDesk;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  const org = await stack.createOrg();
  pd = new PropDesk({ apiKey: (await stack.createKey(org.id)).token, baseUrl: stack.url });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

/** The headers as a plain record of strings (what the libraries take). */
function flat(headers: IncomingHttpHeaders, drop: RegExp = /^$/): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => typeof value === 'string' && !drop.test(name))
      .map(([name, value]) => [name, value as string]),
  );
}

const refusal = (run: () => unknown): string => {
  try {
    run();
    return 'accepted';
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.reason : 'refused';
  }
};

/** What the SDK and the two libraries say of one delivery. */
function verdicts(body: string, headers: Record<string, string>, secret: string): { sdk: string; standardwebhooks: string; svix: string } {
  return {
    sdk: refusal(() => verifyWebhook(body, headers, secret)),
    standardwebhooks: refusal(() => new StandardWebhook(secret).verify(body, headers)),
    svix: refusal(() => new SvixWebhook(secret).verify(body, headers)),
  };
}
const ACCEPTED = { sdk: 'accepted', standardwebhooks: 'accepted', svix: 'accepted' };

async function deliveriesTo(path: string, count: number, trigger: () => Promise<unknown>): Promise<ReceivedRequest[]> {
  const before = receiver.received(path).length;
  await trigger();
  return (await receiver.waitFor(before + count, path, 30_000)).slice(before, before + count);
}

describe('webhooks.verify on real deliveries', () => {
  it('accepts each delivery by either scheme, as standardwebhooks and svix do, and returns the typed event', async () => {
    const endpoint = await pd.createWebhook({ url: receiver.url('/plain'), events: ['account.created'] });
    const [delivery] = await deliveriesTo('/plain', 1, () => pd.createAccounts({ count: 1 }));
    const { body, headers } = delivery!;
    expect(verdicts(body, flat(headers), endpoint.secret)).toEqual(ACCEPTED);
    const event = pd.webhooks.verify(body, headers, endpoint.secret);
    expect(EVENT_TYPES).toContain(event.type);
    if (event.type !== 'account.created') throw new Error(`unexpected ${event.type}`);
    expect(event.data.status).toBe('active');
    // Each scheme alone: only the standard headers, only PropDesk's, and fetch's Headers.
    expect(refusal(() => verifyWebhook(body, flat(headers, /^x-service-/), endpoint.secret))).toBe('accepted');
    expect(refusal(() => verifyWebhook(body, flat(headers, /^webhook-/), endpoint.secret))).toBe('accepted');
    expect(refusal(() => verifyWebhook(Buffer.from(body), new Headers(flat(headers)), endpoint.secret))).toBe('accepted');
    expect(refusal(() => verifyWebhook(body, flat(headers, /^(webhook-|x-service-)/), endpoint.secret))).toBe('missing_headers');
  });

  it('refuses a changed body, another secret and a stale timestamp, as the libraries do', async () => {
    const endpoint = await pd.createWebhook({ url: receiver.url('/refusals'), events: ['account.created'] });
    const [delivery] = await deliveriesTo('/refusals', 1, () => pd.createAccounts({ count: 1 }));
    const { body } = delivery!;
    const headers = flat(delivery!.headers);
    const refused = (reason: string) => ({ sdk: reason, standardwebhooks: 'refused', svix: 'refused' });

    const changed = body.replace('"status":"active"', '"status":"passed"');
    expect(changed).not.toBe(body);
    expect(verdicts(changed, headers, endpoint.secret)).toEqual(refused('invalid_signature'));
    expect(verdicts(body, headers, `whsec_${randomBytes(32).toString('base64')}`)).toEqual(refused('invalid_signature'));
    // Each scheme alone refuses a changed body too.
    expect(refusal(() => verifyWebhook(changed, flat(delivery!.headers, /^webhook-/), endpoint.secret))).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(changed, flat(delivery!.headers, /^x-service-/), endpoint.secret))).toBe('invalid_signature');

    // 300 s of tolerance each way: the SDK's clock moved, then signatures the library makes.
    const sent = Number(headers['webhook-timestamp']);
    expect(refusal(() => verifyWebhook(body, headers, endpoint.secret, { now: sent + 299 }))).toBe('accepted');
    expect(refusal(() => verifyWebhook(body, headers, endpoint.secret, { now: sent + 301 }))).toBe('timestamp_out_of_tolerance');
    expect(refusal(() => verifyWebhook(body, headers, endpoint.secret, { now: sent - 301 }))).toBe('timestamp_out_of_tolerance');
    const signer = new StandardWebhook(endpoint.secret);
    const signedAt = (seconds: number) => {
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 + seconds * 1000);
      const id = headers['webhook-id'] as string;
      return { 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': signer.sign(id, at, body) };
    };
    expect(verdicts(body, signedAt(0), endpoint.secret)).toEqual(ACCEPTED);
    expect(verdicts(body, signedAt(-400), endpoint.secret)).toEqual(refused('timestamp_out_of_tolerance'));
    expect(verdicts(body, signedAt(400), endpoint.secret)).toEqual(refused('timestamp_out_of_tolerance'));
  });

  it('accepts a delivery signed twice during a rotation with either secret, by either scheme', async () => {
    const endpoint = await pd.createWebhook({ url: receiver.url('/rotation'), events: ['account.created'] });
    const rotated = await pd.rotateWebhookSecret(endpoint.id, { previous_expires_in: 3600 });
    expect(rotated.secret).not.toBe(endpoint.secret);
    const [delivery] = await deliveriesTo('/rotation', 1, () => pd.createAccounts({ count: 1 }));
    const headers = flat(delivery!.headers);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['x-service-signature']!.split(',')).toHaveLength(2);
    for (const secret of [rotated.secret, endpoint.secret]) {
      expect(verdicts(delivery!.body, headers, secret)).toEqual(ACCEPTED);
      expect(refusal(() => verifyWebhook(delivery!.body, flat(delivery!.headers, /^webhook-/), secret))).toBe('accepted');
      expect(refusal(() => verifyWebhook(delivery!.body, flat(delivery!.headers, /^x-service-/), secret))).toBe('accepted');
    }
    // A receiver rolling its own configuration may hold both.
    expect(refusal(() => verifyWebhook(delivery!.body, headers, [`whsec_${randomBytes(32).toString('base64')}`, rotated.secret]))).toBe('accepted');
  });
});
