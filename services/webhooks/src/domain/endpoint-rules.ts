import { AppError, ENDPOINT_DESCRIPTION_RULE, requireText } from '@propdesk/kit';
import { isEventType, type EventType } from './event-types';
import { isIpLiteral, isPublicAddress } from './address-policy';

export const MAX_URL_LENGTH = 2048;

/**
 * Names that never lead to the public internet: localhost and its subdomains (RFC 6761 resolves
 * them to loopback), and the suffixes reserved for private networks (.internal, ICANN 2024;
 * .local, mDNS; .home.arpa, RFC 8375; .localdomain by convention) or never resolved (.invalid).
 */
const PRIVATE_SUFFIXES = ['localhost', 'internal', 'local', 'localdomain', 'home.arpa', 'invalid'];

function isPrivateName(hostname: string): boolean {
  return PRIVATE_SUFFIXES.some((suffix) => hostname === suffix || hostname.endsWith(`.${suffix}`));
}

/**
 * The WHATWG parser silently drops tabs and line breaks anywhere in a URL and trims surrounding
 * spaces and control characters: such input is refused rather than repaired.
 */
const WHITESPACE_OR_CONTROL = /[\u0000-\u0020\u007F-\u009F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Registration check of an endpoint URL; returns the URL as the WHATWG parser normalises it (the
 * form every later consumer parses): scheme and host lowercased (HTTPS://Example.COM is
 * https://example.com), the default port dropped, numeric host spellings (2130706433, 0x7f.1,
 * 017700000001, 127.1) written as the address they are. Unless private networks are allowed, it
 * refuses what the SSRF guard would certainly refuse at delivery: a literal loopback, private,
 * link-local or otherwise reserved address in any notation (IPv4-mapped IPv6 included), a
 * localhost or private-suffix name, and a single-label name (resolved through search domains
 * onto the local network). Other DNS names are checked again at connect time.
 */
export function validateEndpointUrl(raw: string, allowPrivateNetworks: boolean): string {
  const bad = (message: string) => new AppError('invalid_request', message, 'url');
  if (typeof raw !== 'string' || raw === '') throw bad('url is required');
  if (raw.length > MAX_URL_LENGTH) throw bad(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (WHITESPACE_OR_CONTROL.test(raw) || LONE_SURROGATE.test(raw)) throw bad('url must not contain whitespace or control characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('url is not a valid URL');
  }
  if (url.protocol !== 'https:') throw bad('url must use https');
  if (url.username || url.password) throw bad('url must not contain credentials');
  // A trailing dot names the same host (localhost. is localhost).
  const hostname = url.hostname.replace(/\.+$/, '');
  if (!hostname) throw bad('url must have a host');
  if (!allowPrivateNetworks) {
    if (isIpLiteral(hostname)) {
      if (!isPublicAddress(hostname)) throw bad('url points to a private, loopback or reserved address');
    } else if (isPrivateName(hostname)) {
      throw bad('url names a local or private host (localhost, .internal, .local, ...)');
    } else if (!hostname.includes('.')) {
      throw bad('url must name a public host (a fully qualified domain name)');
    }
  }
  return url.href;
}

/**
 * Ports a deployment's egress allows (WEBHOOK_EGRESS_PORTS): null when any port may be reached.
 * Registration accepts other ports (the policy may change) but says deliveries will not arrive.
 */
export function egressWarnings(normalizedUrl: string, egressPorts: ReadonlySet<number> | null): string[] {
  if (egressPorts === null) return [];
  const url = new URL(normalizedUrl);
  const port = url.port === '' ? 443 : Number(url.port);
  if (egressPorts.has(port)) return [];
  const allowed = [...egressPorts].sort((a, b) => a - b).join(', ');
  return [`port ${port} is not among the ports this deployment's egress allows (${allowed}): deliveries to this endpoint will fail until the egress policy allows it`];
}

/** Known types only, duplicates dropped; empty means every type. */
export function validateEventTypes(events: readonly string[]): EventType[] {
  const unique = [...new Set(events)];
  const unknown = unique.filter((e) => !isEventType(e));
  if (unknown.length > 0) throw new AppError('invalid_request', `unknown event type: ${unknown.join(', ')}`, 'events');
  return unique as EventType[];
}

/** An endpoint's description: the kit's text rule (ENDPOINT_DESCRIPTION_RULE), taken exactly; absent or empty is none. */
export function validateDescription(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return requireText(value, 'description', ENDPOINT_DESCRIPTION_RULE);
}

/** How far back recover reaches (SPEC 17). */
export const RECOVER_WINDOW_DAYS = 14;

/** recover's `since`: required, not in the future, at most RECOVER_WINDOW_DAYS before `now`. */
export function validateRecoverSince(since: Date | undefined, now: Date): Date {
  const bad = (message: string) => new AppError('invalid_request', message, 'since');
  if (since === undefined || Number.isNaN(since.getTime())) throw bad('since is required (an ISO 8601 time)');
  if (since.getTime() > now.getTime()) throw bad('since must not be in the future');
  if (since.getTime() < now.getTime() - RECOVER_WINDOW_DAYS * 86_400_000) throw bad(`since must be at most ${RECOVER_WINDOW_DAYS} days ago`);
  return since;
}
