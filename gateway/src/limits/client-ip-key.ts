import ipaddr from 'ipaddr.js';

/**
 * The per-IP bucket of an address. IPv4-mapped IPv6 (what a dual-stack socket reports) counts as
 * the IPv4 address; other IPv6 addresses count per /64, because one host commonly holds a whole /64
 * and could otherwise rotate through fresh buckets.
 */
export function ipBucketKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}
