import { signPayload } from './domain/signature';
import { verifyWebhook } from './verify';

const secret = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
const body = JSON.stringify({ id: 'evt_1', type: 'account.created', created_at: '2026-01-01T00:00:00.000Z', organization_id: 'o', data: {} });
const now = 1_800_000_000;
const headersFor = (timestamp: number, rawBody = body, key = secret) => ({
  'x-service-id': 'evt_1',
  'x-service-timestamp': String(timestamp),
  'x-service-signature': signPayload(key, timestamp, rawBody),
});

describe('verifyWebhook', () => {
  it('accepts a correctly signed, recent delivery and returns the event', () => {
    const result = verifyWebhook({ rawBody: body, headers: headersFor(now), secret, now });
    expect(result).toEqual({ ok: true, event: JSON.parse(body) });
  });

  it('accepts a Buffer body and a fetch-style Headers object', () => {
    const headers = new Headers(headersFor(now - 10));
    expect(verifyWebhook({ rawBody: Buffer.from(body), headers, secret, now }).ok).toBe(true);
  });

  it('refuses a body changed after signing', () => {
    const result = verifyWebhook({ rawBody: body.replace('evt_1', 'evt_2'), headers: headersFor(now), secret, now });
    expect(result).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a signature made with another secret', () => {
    expect(verifyWebhook({ rawBody: body, headers: headersFor(now, body, 'whsec_other'), secret, now })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a timestamp outside the tolerance, in either direction', () => {
    expect(verifyWebhook({ rawBody: body, headers: headersFor(now - 301), secret, now })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook({ rawBody: body, headers: headersFor(now + 301), secret, now })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook({ rawBody: body, headers: headersFor(now - 1000), secret, now, toleranceSeconds: 2000 }).ok).toBe(true);
  });

  it('refuses a replayed signature under a new timestamp', () => {
    const headers = { ...headersFor(now - 100), 'x-service-timestamp': String(now) };
    expect(verifyWebhook({ rawBody: body, headers, secret, now })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses missing or malformed headers', () => {
    expect(verifyWebhook({ rawBody: body, headers: {}, secret, now })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verifyWebhook({ rawBody: body, headers: { ...headersFor(now), 'x-service-timestamp': 'soon' }, secret, now })).toEqual({
      ok: false,
      reason: 'invalid_timestamp',
    });
    expect(verifyWebhook({ rawBody: body, headers: { ...headersFor(now), 'x-service-signature': 'v1=zz' }, secret, now })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
  });

  it('accepts any one of several signatures', () => {
    const headers = { ...headersFor(now), 'x-service-signature': `v1=${'0'.repeat(64)} ${signPayload(secret, now, body)}` };
    expect(verifyWebhook({ rawBody: body, headers, secret, now }).ok).toBe(true);
  });

  it('accepts either signature of a rotation, sent comma-separated', () => {
    const previous = 'whsec_previousprevioussecret0123456789';
    const headers = { ...headersFor(now), 'x-service-signature': `${signPayload(secret, now, body)},${signPayload(previous, now, body)}` };
    expect(verifyWebhook({ rawBody: body, headers, secret, now }).ok).toBe(true);
    expect(verifyWebhook({ rawBody: body, headers, secret: previous, now }).ok).toBe(true);
    expect(verifyWebhook({ rawBody: body, headers, secret: 'whsec_neither', now })).toEqual({ ok: false, reason: 'invalid_signature' });
  });
});
