/**
 * SPEC 13 at the webhooks service: an endpoint belongs to the mode it was registered in and
 * receives only that mode's events (signed envelopes carry livemode); each mode's endpoints,
 * deliveries and cursors are apart, and the other mode's endpoint is not_found on every call.
 */
import { AppError, Mode } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { webhooksv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.teardown();
});

const LIVE = Mode.MODE_LIVE;
const TEST = Mode.MODE_TEST;

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

describe('webhooks by mode', () => {
  it('delivers test events only to test endpoints and live events only to live ones, with livemode in the envelope', async () => {
    const org = h.org();
    const live = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: h.receiver.url('/mode-live'), events: [] });
    const test = await h.client.call.createEndpoint({ organizationId: org, mode: TEST, url: h.receiver.url('/mode-test'), events: [] });
    expect([live.endpoint?.livemode, test.endpoint?.livemode]).toEqual([true, false]);

    const liveEvent = h.accounts.publish({ type: 'account.created', organizationId: org });
    const testEvent = h.accounts.publish({ type: 'account.created', organizationId: org, livemode: false });
    const [toTest] = await h.receiver.waitFor(1, '/mode-test');
    const [toLive] = await h.receiver.waitFor(1, '/mode-live');
    expect(toTest.headers['x-service-id']).toBe(testEvent.id);
    expect(JSON.parse(toTest.body)).toMatchObject({ id: testEvent.id, organization_id: org, livemode: false });
    expect(toLive.headers['x-service-id']).toBe(liveEvent.id);
    expect(JSON.parse(toLive.body)).toMatchObject({ id: liveEvent.id, livemode: true });
    // A later event of each mode proves the first of the other never came.
    const second = h.accounts.publish({ type: 'account.archived', organizationId: org, livemode: false });
    await waitUntil(async () => h.receiver.received('/mode-test').length === 2);
    expect(h.receiver.received('/mode-test').map((r) => r.headers['x-service-id'])).toEqual([testEvent.id, second.id]);
    expect(h.receiver.received('/mode-live').map((r) => r.headers['x-service-id'])).toEqual([liveEvent.id]);

    const deliveries = await h.client.call.listDeliveries({
      organizationId: org,
      mode: TEST,
      endpointId: test.endpoint!.id,
      pageSize: 0,
      pageToken: '',
      status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
      eventType: '',
    });
    expect(deliveries.deliveries.map((d) => d.eventId).sort()).toEqual([testEvent.id, second.id].sort());
  });

  it('signs a test event of a test endpoint as a test-mode envelope', async () => {
    const org = h.org();
    const test = await h.client.call.createEndpoint({ organizationId: org, mode: TEST, url: h.receiver.url('/mode-sample'), events: [] });
    const sent = await h.client.call.sendTestEvent({ organizationId: org, mode: TEST, endpointId: test.endpoint!.id });
    const [received] = await h.receiver.waitFor(1, '/mode-sample');
    expect(JSON.parse(received.body)).toMatchObject({ id: sent.eventId, livemode: false, data: { test: true } });
  });

  it('answers the other mode’s endpoint not_found on every call, and lists and pages each mode apart', async () => {
    const org = h.org();
    const made = async (mode: Mode, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 1) ids.push((await h.client.call.createEndpoint({ organizationId: org, mode, url: h.receiver.url(`/apart-${mode}-${i}`), events: [] })).endpoint!.id);
      return ids;
    };
    const liveIds = await made(LIVE, 3);
    const testIds = await made(TEST, 3);
    const listed = async (mode: Mode) => {
      const ids: string[] = [];
      let pageToken = '';
      do {
        const page = await h.client.call.listEndpoints({ organizationId: org, mode, pageSize: 2, pageToken });
        ids.push(...page.endpoints.map((e) => e.id));
        pageToken = page.nextPageToken;
      } while (pageToken);
      return ids;
    };
    expect(await listed(TEST)).toEqual(testIds);
    expect(await listed(LIVE)).toEqual(liveIds);
    expect(await listed(Mode.MODE_UNSPECIFIED)).toEqual(liveIds);

    const livePage = await h.client.call.listEndpoints({ organizationId: org, mode: LIVE, pageSize: 1, pageToken: '' });
    expect((await rejection(h.client.call.listEndpoints({ organizationId: org, mode: TEST, pageSize: 1, pageToken: livePage.nextPageToken }))).code).toBe('invalid_cursor');

    const endpointId = testIds[0];
    const scope = { organizationId: org, mode: LIVE, endpointId };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getEndpoint', () => h.client.call.getEndpoint(scope)],
      ['enableEndpoint', () => h.client.call.enableEndpoint(scope)],
      ['sendTestEvent', () => h.client.call.sendTestEvent(scope)],
      ['rotateEndpointSecret', () => h.client.call.rotateEndpointSecret(scope)],
      ['retryDelivery', () => h.client.call.retryDelivery({ ...scope, deliveryId: '00000000-0000-4000-8000-000000000000' })],
      ['listDeliveries', () => h.client.call.listDeliveries({ ...scope, pageSize: 0, pageToken: '', status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED, eventType: '' })],
      ['deleteEndpoint', () => h.client.call.deleteEndpoint(scope)],
    ];
    for (const [name, call] of calls) expect({ name, code: (await rejection(call())).code }).toEqual({ name, code: 'not_found' });
    expect((await h.client.call.getEndpoint({ organizationId: org, mode: TEST, endpointId })).endpoint?.id).toBe(endpointId);
  });
});
