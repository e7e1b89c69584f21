/**
 * POST /v1/webhooks/{id}/test sends a sample event that says it is a test (data.test: true) and
 * carries nothing of another organization (its fields those of the type's schema in the event catalog): no real account number, no real id, only the caller's
 * organization id and obviously synthetic values, in the ordinary signed envelope.
 */
import { EVENT_CATALOG, EVENT_TYPES } from '@propdesk/kit';
import { startStack, type Stack } from '../support/stack';
import { client } from '../support/http';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '../../services/webhooks/src/verify';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let api: ReturnType<typeof client>;
let orgId: string;
const realNumbers: number[] = [];
const realIds: string[] = [];

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  // Another organization with real accounts and a trader (the first numbers handed out).
  const other = await stack.createOrg();
  const otherApi = client(stack.url, (await stack.createKey(other.id)).token);
  realNumbers.push(...(await stack.createAccounts(other.id, 3)));
  const claimed = await otherApi.post<{ trader: { id: string } }>('/v1/accounts/claim', '/v1/accounts/claim', { body: { name: 'Other', email: 'other@example.com' } });
  realIds.push(claimed.body.trader.id, other.id);
  const org = await stack.createOrg();
  orgId = org.id;
  api = client(stack.url, (await stack.createKey(org.id)).token);
  realNumbers.push(...(await stack.createAccounts(org.id, 1)));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

describe('test events', () => {
  it.each(EVENT_TYPES)('a %s test event is marked as a test and carries no foreign or misleading data', async (type) => {
    const path = `/test-${type}`;
    const created = await api.post<{ id: string; secret: string }>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url(path), events: [type] } });
    expect(created.status).toBe(201);
    const sent = await api.post<{ event_id: string }>('/v1/webhooks/{id}/test', `/v1/webhooks/${created.body.id}/test`);
    expect(sent.status).toBe(202);
    const [delivery] = await receiver.waitFor(1, path, 30_000);
    const verified = verifyWebhook({ rawBody: delivery!.body, headers: delivery!.headers, secret: created.body.secret });
    if (!verified.ok) throw new Error(verified.reason);
    const event = verified.event as { id: string; type: string; created_at: string; organization_id: string; livemode: boolean; sequence: null; data: Record<string, unknown> };
    expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'livemode', 'organization_id', 'sequence', 'type']);
    // account 0 is no account: a test event takes no place in any account's events
    expect(event).toMatchObject({ id: sent.body.event_id, type, organization_id: orgId, livemode: true, sequence: null });
    expect(event.data.test).toBe(true);
    // Shaped like the real event: exactly the fields of the type's schema in the event catalog.
    expect(Object.keys(event.data).sort()).toEqual(Object.keys(EVENT_CATALOG[type].schema.shape).sort());
    const text = JSON.stringify(event.data);
    for (const n of realNumbers) expect(text).not.toContain(String(n));
    for (const id of realIds) expect(text).not.toContain(id);
    expect(text).not.toContain('00000000-0000-0000-0000-000000000000');
  });
});
