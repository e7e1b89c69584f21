import ipaddr from 'ipaddr.js';

/**
 * Whether a destination IP is on the public internet. ipaddr.process() unwraps IPv4-mapped IPv6
 * (::ffff:10.0.0.1 is judged as 10.0.0.1); every range other than plain unicast (loopback,
 * private, link-local, CGNAT, documentation and other reserved blocks, multicast, unspecified,
 * 6to4/Teredo/NAT64 tunnels and the old IPv4-compatible ::/96 that can embed a private IPv4) is
 * refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  // ipaddr.js calls the deprecated IPv4-compatible block ::/96 (::127.0.0.1 is ::7f00:1) unicast;
  // it was never public and some stacks still route it to the embedded IPv4 address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/** True when the host (as URL.hostname gives it) is an IP literal rather than a DNS name. */
export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}
