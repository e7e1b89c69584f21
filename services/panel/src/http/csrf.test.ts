import type { Request } from 'express';
import { isSameOrigin } from './csrf';
import { readCookie } from './session';
import { retryAfterSeconds } from './errors';

function fakeRequest(headers: Record<string, string>, host?: string): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name: string) => lower[name.toLowerCase()], host: host ?? lower.host } as unknown as Request;
}

describe('the same-origin check of state-changing requests', () => {
  it('trusts the browser when it says the request is same-origin', () => {
    expect(isSameOrigin(fakeRequest({ 'sec-fetch-site': 'same-origin', origin: 'http://evil.example' }))).toBe(true);
  });

  it('refuses cross-site and same-site requests a browser labels as such', () => {
    expect(isSameOrigin(fakeRequest({ 'sec-fetch-site': 'cross-site' }))).toBe(false);
    expect(isSameOrigin(fakeRequest({ 'sec-fetch-site': 'same-site' }))).toBe(false);
  });

  it('compares Origin with the Host when the browser sends no fetch metadata', () => {
    expect(isSameOrigin(fakeRequest({ host: 'panel.example:8080', origin: 'https://panel.example:8080' }))).toBe(true);
    expect(isSameOrigin(fakeRequest({ host: 'panel.example:8080', origin: 'https://evil.example' }))).toBe(false);
    expect(isSameOrigin(fakeRequest({ host: 'panel.example', origin: 'null' }))).toBe(false);
  });

  it('accepts the forwarded host of a trusted proxy', () => {
    const req = fakeRequest({ host: '127.0.0.1:8090', 'x-forwarded-host': 'desk.example', origin: 'https://desk.example' }, 'desk.example');
    expect(isSameOrigin(req)).toBe(true);
  });

  it('lets non-browser clients (no Origin, no fetch metadata) through', () => {
    expect(isSameOrigin(fakeRequest({ host: 'panel.example' }))).toBe(true);
  });
});

describe('reading the session cookie', () => {
  it('finds the named cookie among others', () => {
    expect(readCookie('a=1; pd_session=abc%2Bdef; b=2', 'pd_session')).toBe('abc+def');
  });

  it('ignores absent, malformed and look-alike cookies', () => {
    expect(readCookie(undefined, 'pd_session')).toBeUndefined();
    expect(readCookie('pd_sessionx=1; junk', 'pd_session')).toBeUndefined();
    expect(readCookie('pd_session=%E0%A4%A', 'pd_session')).toBeUndefined();
  });
});

describe('Retry-After for a rate-limited login', () => {
  it('takes the wait the service stated, at least one second', () => {
    expect(retryAfterSeconds('too many failed logins, try again in 42 s')).toBe(42);
    expect(retryAfterSeconds('retry after 0 seconds')).toBe(1);
  });

  it('falls back to a minute when the service said nothing', () => {
    expect(retryAfterSeconds('too many attempts')).toBe(60);
  });
});
