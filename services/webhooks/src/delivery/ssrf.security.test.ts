import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { createLogger, Mode } from '@propdesk/kit';
import { webhooksv1 } from '@propdesk/proto';
import { start } from '../main';
import { createWebhooksClient } from '../test/webhooks-client';
import { waitUntil } from '@propdesk/kit/testing';
import { startHarness, type Harness } from '../test/harness';
import { guardedConnector, type ResolveAll } from './http-sender';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
});
afterAll(async () => {
  await h?.teardown();
});

/** A resolver that answers every name with these addresses, as a hostile or rebinding DNS would. */
const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  (_host, _options, callback) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('SSRF guard', () => {
  it('refuses localhost at registration: delivery could never reach it', async () => {
    const refused = await h.client.call
      .createEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, url: h.receiver.url('/ssrf'), events: [] })
      .then(() => undefined, (err: unknown) => err);
    expect(refused).toMatchObject({ code: 'invalid_request', param: 'url' });
  });

  it('refuses, at connect time, a public-looking name that resolves to loopback, without sending anything', async () => {
    const ca = [...rootCertificates, readFileSync(h.cert.certFile, 'utf8')];
    const agent = new Agent({ connect: guardedConnector({ allowPrivateNetworks: false, ca, timeoutMs: 2000, lookup: resolvingTo('127.0.0.1') }) });
    try {
      const failure = await request(`https://hooks.example.com:${h.receiver.port}/ssrf`, { method: 'POST', body: '{}', dispatcher: agent }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toMatchObject({ code: 'DESTINATION_REFUSED' });
      expect(h.receiver.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('refuses a name whose every address is private, IPv4-mapped and IPv6 loopback included', async () => {
    const attempts: string[] = [];
    const connector = guardedConnector({ allowPrivateNetworks: false, timeoutMs: 200, lookup: resolvingTo('10.0.0.1', '::1', '::ffff:127.0.0.1') });
    await new Promise<void>((resolve) =>
      connector({ hostname: 'hooks.example.com', host: 'hooks.example.com', protocol: 'https:', port: '443', servername: 'hooks.example.com' }, (...outcome) => {
        attempts.push(String((outcome[0] as { code?: string } | null)?.code));
        resolve();
      }),
    );
    expect(attempts).toEqual(['DESTINATION_REFUSED']);
  });

  it('records a refused delivery as an attempt that sent nothing', async () => {
    // An endpoint registered while private networks were allowed, delivered after they no longer are.
    const org = h.org();
    const open = await start({ ...h.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { logger: createLogger('webhooks-open', { level: 'silent' }) });
    const openClient = createWebhooksClient(open.address);
    const { endpoint } = await openClient.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url('/late'), events: [] });
    openClient.close();
    await open.stop();
    await h.client.call.sendTestEvent({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id });
    const [delivery] = await waitUntil(async () => {
      const { deliveries } = await h.client.call.listDeliveries({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id, pageSize: 0, pageToken: '', status: 0, eventType: '' });
      return deliveries[0]?.attempt >= 1 && deliveries;
    });
    expect(delivery.responseStatus).toBe(0);
    expect(delivery.error).toMatch(/private, loopback or reserved/);
    expect(delivery.status).toBe(webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING);
    expect(h.receiver.received('/late')).toHaveLength(0);
  });
});
