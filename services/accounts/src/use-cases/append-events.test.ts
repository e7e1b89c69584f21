import { randomUUID } from 'node:crypto';
import { Mode, newEventId } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';
import { failure } from '../test/lifecycle-helpers';

/**
 * AppendEvents: another service's events (webhook_endpoint.disabled) join the outbox, so the feed
 * and StreamEvents carry them; idempotent by id; no other type, and no sequence.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const disabled = (org: string, id = newEventId(), livemode = true) => ({
  id,
  type: 'webhook_endpoint.disabled',
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  organizationId: org,
  livemode,
  data: { id: randomUUID(), url: 'https://hooks.example.com/x', reason: 'endpoint answered 410 Gone' },
  traceparent: '',
  tracestate: '',
});

it('appends them to the feed of their organization and mode, once per id, with their own time and no sequence', async () => {
  const org = h.newOrg();
  const live = disabled(org);
  const test = disabled(org, newEventId(), false);
  expect(await h.api.appendEvents({ events: [live, test] })).toEqual({ appended: 2 });
  expect(await h.api.appendEvents({ events: [live] })).toEqual({ appended: 0 });

  const page = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', type: 'webhook_endpoint.disabled' });
  expect(page.events).toHaveLength(1);
  expect(page.events[0]).toMatchObject({ id: live.id, organizationId: org, livemode: true, data: live.data, createdAt: live.createdAt });
  expect(page.events[0].sequence).toBeUndefined();
  const testPage = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_TEST, pageSize: 0, pageToken: '', type: '' });
  expect(testPage.events.map((e) => e.id)).toEqual([test.id]);
});

it('takes no type but the ones other services own, and nothing without an id or an organization', async () => {
  const org = h.newOrg();
  for (const event of [
    { ...disabled(org), type: 'account.breached', data: { account: 1000001 } },
    { ...disabled(org), id: 'not-an-event-id' },
    { ...disabled(org), organizationId: 'nobody' },
    { ...disabled(org), sequence: '1' },
  ]) {
    expect(await failure(h.api.appendEvents({ events: [event] }))).toMatchObject({ code: 'invalid_request', param: 'events' });
  }
  const page = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', type: '' });
  expect(page.events).toEqual([]);
});
