import { webhooksv1 } from '@propdesk/proto';
import { eventually, startHarness, type Harness } from '../test/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
});
afterAll(async () => {
  await h?.teardown();
});

describe('SSRF guard at connect time', () => {
  it('refuses a host name that resolves to loopback, without sending anything', async () => {
    const org = h.org();
    // A DNS name passes registration; the address it resolves to is checked when connecting.
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, url: h.receiver.url('/ssrf'), events: [] });
    await h.client.call.sendTestEvent({ organizationId: org, endpointId: endpoint!.id });
    const [delivery] = await eventually(async () => {
      const { deliveries } = await h.client.call.listDeliveries({ organizationId: org, endpointId: endpoint!.id, pageSize: 0, pageToken: '', status: 0, eventType: '' });
      return deliveries[0]?.attempt >= 1 && deliveries;
    });
    expect(delivery.responseStatus).toBe(0);
    expect(delivery.error).toMatch(/private, loopback or reserved/);
    expect(delivery.status).toBe(webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING);
    expect(h.receiver.requests).toHaveLength(0);
  });
});
