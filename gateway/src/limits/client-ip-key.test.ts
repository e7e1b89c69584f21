import { ipBucketKey } from './client-ip-key';

describe('the per-IP bucket of an address', () => {
  it('an IPv4 address is its own bucket', () => {
    expect(ipBucketKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('an IPv4-mapped IPv6 address counts as the IPv4 address', () => {
    expect(ipBucketKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('IPv6 addresses of one /64 share a bucket', () => {
    expect(ipBucketKey('2001:db8:1:2::1')).toBe(ipBucketKey('2001:db8:1:2:ffff::9'));
    expect(ipBucketKey('2001:db8:1:2::1')).not.toBe(ipBucketKey('2001:db8:1:3::1'));
  });

  it('something that is not an address is used as it is', () => {
    expect(ipBucketKey('unknown')).toBe('unknown');
  });
});
