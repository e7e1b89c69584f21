import { ALL_ACCEPT, NONE_ACCEPT, verdicts } from '../test/receiver-libraries';
import { verifyWebhook } from '../verify';
import { newEndpointSecret, signatureHeaders, standardSigningKey } from './signature';

const body = JSON.stringify({ id: 'evt_1', type: 'account.created', created_at: '2026-01-01T00:00:00.000Z', organization_id: 'o', data: { account: 1 } });
const now = () => Math.floor(Date.now() / 1000);
const signed = (secrets: string[], timestamp = now()) => ({ body, headers: signatureHeaders({ eventId: 'evt_1', timestamp, body, secrets }) });

describe('signing a delivery', () => {
  it('makes new secrets whsec_ + base64 of 32 random bytes', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardSigningKey(secret)).toHaveLength(32);
    expect(newEndpointSecret()).not.toBe(secret);
  });

  it('carries section 8 and Standard Webhooks headers that every receiver library accepts', () => {
    const secret = newEndpointSecret();
    const delivered = signed([secret]);
    expect(delivered.headers).toMatchObject({ 'x-service-id': 'evt_1', 'webhook-id': 'evt_1' });
    expect(delivered.headers['webhook-timestamp']).toBe(delivered.headers['x-service-timestamp']);
    expect(delivered.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(delivered.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verdicts(delivered, secret)).toEqual(ALL_ACCEPT);
    expect(verifyWebhook({ rawBody: body, headers: delivered.headers, secret }).ok).toBe(true);
  });

  it('is refused by every library under another secret, a changed body or an old timestamp', () => {
    const secret = newEndpointSecret();
    expect(verdicts(signed([secret]), newEndpointSecret())).toEqual(NONE_ACCEPT);
    expect(verdicts({ ...signed([secret]), body: body.replace('evt_1', 'evt_2') }, secret)).toEqual(NONE_ACCEPT);
    expect(verdicts(signed([secret], now() - 3600), secret)).toEqual(NONE_ACCEPT);
  });

  it('signs with both secrets during a rotation, so either one verifies with every library', () => {
    const [next, previous] = [newEndpointSecret(), newEndpointSecret()];
    const delivered = signed([next, previous]);
    expect(delivered.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(delivered.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verdicts(delivered, next)).toEqual(ALL_ACCEPT);
    expect(verdicts(delivered, previous)).toEqual(ALL_ACCEPT);
    expect(verifyWebhook({ rawBody: body, headers: delivered.headers, secret: previous }).ok).toBe(true);
    expect(verdicts(delivered, newEndpointSecret())).toEqual(NONE_ACCEPT);
  });

  it('signs secrets of the older form (whsec_ + 32 letters and digits) so the libraries verify them too', () => {
    const legacy = 'whsec_abcdefghijklmnopqrstuvwxyzABCDEF';
    expect(standardSigningKey(legacy)).toHaveLength(24);
    expect(verdicts(signed([legacy]), legacy)).toEqual(ALL_ACCEPT);
  });

  it('sends no webhook-signature for a secret no library can decode, and still signs section 8', () => {
    for (const odd of ['not-a-whsec-secret', 'whsec_', 'whsec_abc', 'whsec_ab$d']) {
      expect(standardSigningKey(odd)).toBeUndefined();
      const delivered = signed([odd]);
      expect(delivered.headers['webhook-signature']).toBeUndefined();
      expect(delivered.headers['webhook-id']).toBe('evt_1');
      expect(verdicts(delivered, odd)).toMatchObject({ serviceByHand: true, stripe: true });
    }
  });
});
