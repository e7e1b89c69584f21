/**
 * Registration refuses what delivery would certainly refuse (SPEC 8): localhost names, .localhost,
 * .internal and other non-public names, literal private, loopback, link-local and reserved
 * addresses in every spelling a URL parser turns into one; the scheme is checked after parsing,
 * as the document's pattern says. A port that the deployment's egress does not allow is accepted
 * with a warning.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';

interface Webhook {
  id: string;
  url: string;
  warnings?: string[];
}

let stack: Stack;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
  const org = await stack.createOrg();
  api = client(stack.url, (await stack.createKey(org.id)).token);
});

afterAll(async () => {
  await stack?.stop();
});

/** Every spelling delivery would certainly refuse, or that is not an HTTPS URL at all: registration and PATCH refuse them alike. */
const REFUSED_URLS = [
  'https://localhost/hook',
  'https://LOCALHOST/hook',
  'https://localhost./hook',
  'https://app.localhost/hook',
  'https://a.b.LocalHost:8443/hook',
  'https://metadata.internal/hook',
  'https://db.corp.internal./x',
  'https://printer.local/x',
  'https://intranet/x',
  'https://127.0.0.1/hook',
  'https://127.1/hook',
  'https://2130706433/hook',
  'https://0x7f000001/hook',
  'https://0x7f.1/hook',
  'https://017700000001/hook',
  'https://0177.0.0.1/hook',
  'https://0/hook',
  'https://0.0.0.0/hook',
  'https://10.1.2.3/hook',
  'https://172.16.0.1/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://100.64.0.1/hook',
  'https://198.18.0.1/hook',
  'https://192.0.2.1/hook',
  'https://224.0.0.1/hook',
  'https://255.255.255.255/hook',
  'https://[::1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[::]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook',
  'https://[fe80::1]/hook',
  'https://[fc00::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://[ff02::1]/hook',
  'https://[64:ff9b::7f00:1]/hook',
  'https://[2002:7f00:1::]/hook',
  'https://[2001:db8::1]/hook',
  'http://example.com/hook',
  'ftp://example.com/hook',
  'https://user:pass@example.com/hook',
  'https:/example.com',
  'https://',
];

/** Accepted, and stored as the URL parser normalises them. */
const ACCEPTED_URLS: Array<[string, string]> = [
  ['https://example.com/hook', 'https://example.com/hook'],
  ['HTTPS://example.com/x', 'https://example.com/x'],
  ['Https://Example.COM/x?y=1', 'https://example.com/x?y=1'],
  ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
  ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook'],
  ['https://example.com:443/hook', 'https://example.com/hook'],
];

const register = (url: string) => api.post<Webhook & ErrorBody>('/v1/webhooks', '/v1/webhooks', { body: { url, events: ['account.breached'] } });

describe('webhook registration', () => {
  it.each(REFUSED_URLS)('refuses %s with 400 invalid_request naming url', async (url) => {
    const res = await register(url);
    expect([url, res.status, res.body.error?.code, res.body.error?.param]).toEqual([url, 400, 'invalid_request', 'url']);
  });

  it.each(ACCEPTED_URLS)('accepts %s, stored as the parser normalises it', async (url, stored) => {
    const res = await register(url);
    expect(res.status).toBe(201);
    expect(res.body.url).toBe(stored);
    expect(res.body.warnings ?? []).toEqual([]);
    const listed = await api.get<{ data: Webhook[] }>('/v1/webhooks', '/v1/webhooks?limit=200');
    expect(listed.body.data.find((w) => w.id === res.body.id)?.url).toBe(stored);
  });

  it('accepts a port other than 443 with a warning that egress allows only 443', async () => {
    const res = await register('https://example.com:8443/hook');
    expect(res.status).toBe(201);
    expect(res.body.warnings).toHaveLength(1);
    expect(res.body.warnings?.[0]).toMatch(/8443/);
    expect(res.body.warnings?.[0]).toMatch(/443/);
  });

  it('documents the scheme pattern the server applies', async () => {
    const document = (await (await fetch(`${stack.url}/v1/openapi.json`)).json()) as {
      components: { schemas: { WebhookRequest: { properties: { url: { pattern: string } } } } };
    };
    const pattern = new RegExp(document.components.schemas.WebhookRequest.properties.url.pattern);
    expect(pattern.test('HTTPS://example.com/x')).toBe(true);
    expect(pattern.test('https://example.com/x')).toBe(true);
    expect(pattern.test('http://example.com/x')).toBe(false);
  });
});

describe('changing an endpoint’s url (PATCH) follows registration’s rules', () => {
  let endpointId: string;
  beforeAll(async () => {
    endpointId = (await register('https://example.com/original')).body.id;
  });
  const patch = (url: string) => api.patch<Webhook & ErrorBody>('/v1/webhooks/{id}', `/v1/webhooks/${endpointId}`, { body: { url } });

  it.each(REFUSED_URLS)('refuses %s with 400 invalid_request naming url, keeping the url', async (url) => {
    const res = await patch(url);
    expect([url, res.status, res.body.error?.code, res.body.error?.param]).toEqual([url, 400, 'invalid_request', 'url']);
    const listed = await api.get<{ data: Webhook[] }>('/v1/webhooks', '/v1/webhooks?limit=200');
    expect(listed.body.data.find((w) => w.id === endpointId)?.url).toBe('https://example.com/original');
  });

  it.each(ACCEPTED_URLS)('accepts %s, stored as the parser normalises it', async (url, stored) => {
    const res = await patch(url);
    expect([res.status, res.body.url, res.body.warnings]).toEqual([200, stored, []]);
  });

  it('accepts a port other than 443 with the same warning', async () => {
    const res = await patch('https://example.com:8443/hook');
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([expect.stringMatching(/8443.*443/)]);
  });
});

describe('webhook registration with private networks allowed', () => {
  let open: Stack;
  beforeAll(async () => {
    open = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_EGRESS_PORTS: 'any' } });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('accepts localhost and private addresses, and warns about no port when egress allows any', async () => {
    const org = await open.createOrg();
    const api2 = client(open.url, (await open.createKey(org.id)).token);
    for (const url of ['https://localhost:8443/hook', 'https://127.0.0.1:9/hook', 'https://10.0.0.1/x']) {
      const res = await api2.post<Webhook>('/v1/webhooks', '/v1/webhooks', { body: { url } });
      expect([url, res.status]).toEqual([url, 201]);
      expect(res.body.warnings ?? []).toEqual([]);
    }
  });
});
