import { AppError, isUuid } from '@propdesk/kit';
import { newApiKeyToken, normalizeScopes, validApiKeyName } from './api-key-token';
import { normalizeEmail, validEmail } from './email';
import { parseCount } from './numbers';
import { hashPassword, validatePassword, verifyPassword } from './password';

describe('auth domain rules', () => {
  it('API key tokens: pfx_live_ + 40 alphanumerics, prefix of 17, never twice the same', () => {
    const a = newApiKeyToken(true);
    const b = newApiKeyToken(true);
    expect(a.token).toMatch(/^pfx_live_[A-Za-z0-9]{40}$/);
    expect(a.prefix).toBe(a.token.slice(0, 17));
    expect(a.token).not.toBe(b.token);
  });

  it('test keys: pfx_test_ + 40 alphanumerics, 49 characters, prefix of 17', () => {
    const key = newApiKeyToken(false);
    expect(key.token).toMatch(/^pfx_test_[A-Za-z0-9]{40}$/);
    expect(key.token).toHaveLength(49);
    expect(key.prefix).toBe(key.token.slice(0, 17));
  });

  it('scopes: known only, duplicates removed, canonical order', () => {
    expect(normalizeScopes(['trading:write', 'accounts:read', 'trading:write'])).toEqual(['accounts:read', 'trading:write']);
    expect(normalizeScopes([])).toEqual([]);
    expect(() => normalizeScopes(['accounts:read', 'root'])).toThrow(AppError);
    expect(() => validApiKeyName('   ')).toThrow(AppError);
  });

  it('emails are trimmed and lowercased', () => {
    expect(normalizeEmail('  Ann@Example.COM ')).toBe('ann@example.com');
    expect(validEmail('Ann@Example.com')).toBe('ann@example.com');
    expect(() => validEmail('ann@')).toThrow(AppError);
  });

  it('passwords: at least 8 characters, hashed with a random salt, verified in constant time', async () => {
    expect(() => validatePassword('1234567')).toThrow(AppError);
    const h1 = await hashPassword('password-1');
    const h2 = await hashPassword('password-1');
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('password-1', h1)).toBe(true);
    expect(await verifyPassword('password-2', h1)).toBe(false);
    expect(await verifyPassword('password-1', 'garbage')).toBe(false);
  });

  it('counts are integers in range', () => {
    expect(parseCount('', 'credits', 0n)).toBe('0');
    expect(parseCount('007', 'credits', 0n)).toBe('7');
    expect(() => parseCount('-1', 'credits', 0n)).toThrow(AppError);
    expect(() => parseCount('1e3', 'credits', 0n)).toThrow(AppError);
    expect(() => parseCount('100001', 'count', 1n, 100_000n)).toThrow(AppError);
  });

  it('uuids are recognized before they reach SQL', () => {
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid("3f2504e0-4f89-11d3-9a0c-0305e82c3301' OR 1=1")).toBe(false);
  });
});
