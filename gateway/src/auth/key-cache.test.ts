import { KeyCache, type VerifiedKey } from './key-cache';

const key = (keyId: string, organizationId = 'org-1'): VerifiedKey => ({ keyId, organizationId, livemode: true, scopes: new Set(['accounts:read']), paid: true });

describe('the verified-key cache', () => {
  it('evicts the least recently used entry past its bound', () => {
    const cache = new KeyCache(2);
    cache.set('a', key('k1'), cache.epoch);
    cache.set('b', key('k2'), cache.epoch);
    cache.get('a');
    cache.set('c', key('k3'), cache.epoch);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('c')).toBe(true);
  });

  it('drops by key id and by organization', () => {
    const cache = new KeyCache();
    cache.set('a', key('k1', 'org-1'), cache.epoch);
    cache.set('b', key('k2', 'org-1'), cache.epoch);
    cache.set('c', key('k3', 'org-2'), cache.epoch);
    cache.dropKey('k1');
    expect(cache.has('a')).toBe(false);
    cache.dropOrganization('org-1');
    expect(cache.has('b')).toBe(false);
    expect(cache.has('c')).toBe(true);
  });

  it('refuses to store a lookup that raced an invalidation', () => {
    const cache = new KeyCache();
    const epochAtLookup = cache.epoch;
    cache.dropKey('k1');
    cache.set('a', key('k1'), epochAtLookup);
    expect(cache.has('a')).toBe(false);
  });

  it('does not serve an entry past its expiry: it is dropped on the next request, without a lookup', () => {
    let now = 1000;
    const cache = new KeyCache(10, () => now);
    cache.set('a', { ...key('k1'), validUntil: 1500 }, cache.epoch);
    cache.set('b', key('k2'), cache.epoch);
    expect(cache.get('a')?.keyId).toBe('k1');
    now = 1499;
    expect(cache.has('a')).toBe(true);
    now = 1500;
    expect(cache.has('a')).toBe(false);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(1);
    now = 1_000_000;
    expect(cache.get('b')?.keyId).toBe('k2');
  });
});
