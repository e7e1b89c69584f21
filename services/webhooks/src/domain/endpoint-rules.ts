import { AppError } from '@propdesk/kit';
import { isEventType, type EventType } from './event-types';
import { isIpLiteral, isPublicAddress } from './address-policy';

export const MAX_URL_LENGTH = 2048;

/**
 * Registration check of an endpoint URL. The WHATWG parser already normalises numeric host
 * spellings (2130706433, 0x7f.1, 017700000001, 127.1 all become 127.0.0.1), so the literal check
 * sees the address the connection would use. DNS names are checked again at connect time.
 * Returns the URL as given (trimmed).
 */
export function validateEndpointUrl(raw: string, allowPrivateNetworks: boolean): string {
  const bad = (message: string) => new AppError('invalid_request', message, 'url');
  if (typeof raw !== 'string' || raw.trim() === '') throw bad('url is required');
  if (raw.length > MAX_URL_LENGTH) throw bad(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad('url is not a valid URL');
  }
  if (url.protocol !== 'https:') throw bad('url must use https');
  if (url.username || url.password) throw bad('url must not contain credentials');
  if (!url.hostname) throw bad('url must have a host');
  if (!allowPrivateNetworks && isIpLiteral(url.hostname) && !isPublicAddress(url.hostname)) {
    throw bad('url points to a private, loopback or reserved address');
  }
  // Stored as the integrator wrote it (echoed back unchanged); every consumer parses it the same way.
  return raw.trim();
}

/** Known types only, duplicates dropped; empty means every type. */
export function validateEventTypes(events: readonly string[]): EventType[] {
  const unique = [...new Set(events)];
  const unknown = unique.filter((e) => !isEventType(e));
  if (unknown.length > 0) throw new AppError('invalid_request', `unknown event type: ${unknown.join(', ')}`, 'events');
  return unique as EventType[];
}
