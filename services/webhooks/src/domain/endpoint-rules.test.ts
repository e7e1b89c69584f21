import { AppError } from '@propdesk/kit';
import { isPublicAddress } from './address-policy';
import { egressWarnings, validateEndpointUrl, validateEventTypes } from './endpoint-rules';

function refusal(fn: () => unknown): { code: string; param?: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, param: err.param };
    throw err;
  }
}

describe('endpoint registration rules', () => {
  it('accepts a public https URL', () => {
    expect(validateEndpointUrl('https://hooks.example.com/propdesk?x=1', false)).toBe('https://hooks.example.com/propdesk?x=1');
    expect(validateEndpointUrl('https://8.8.8.8/in', false)).toBe('https://8.8.8.8/in');
    // Stored as the URL parser normalises it: scheme and host lowercased, the default port dropped.
    expect(validateEndpointUrl('HTTPS://Hooks.Example.com:443', false)).toBe('https://hooks.example.com/');
    expect(validateEndpointUrl('https://hooks.example.com:8443/x', false)).toBe('https://hooks.example.com:8443/x');
  });

  it.each([
    'http://hooks.example.com/',
    'ftp://x.example/',
    'not a url',
    '',
    `https://example.com/${'a'.repeat(2048)}`,
    ' https://hooks.example.com/',
    'https://hooks.example.com/\n',
    'https://hooks.exa\tmple.com/',
    'https://user:pw@hooks.example.com/',
  ])(
    'refuses %s as invalid_request on url',
    (url) => {
      expect(refusal(() => validateEndpointUrl(url, false))).toEqual({ code: 'invalid_request', param: 'url' });
    },
  );

  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://127.1/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://192.0.2.10/',
    'https://198.51.100.1/',
    'https://203.0.113.7/',
    'https://224.0.0.1/',
    'https://240.0.0.1/',
    'https://0.0.0.0/',
    'https://255.255.255.255/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[ff02::1]/',
    'https://[2001:db8::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a00:1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::]/',
  ])('refuses the non-public literal address %s', (url) => {
    expect(refusal(() => validateEndpointUrl(url, false))).toEqual({ code: 'invalid_request', param: 'url' });
  });

  it.each([
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://metadata.google.internal/',
    'https://printer.local/',
    'https://router.home.arpa/',
    'https://x.invalid/',
    'https://intranet/',
    'https://[::7f00:1]/',
    'https://[::127.0.0.1]/',
  ])('refuses %s: delivery could never reach the public internet through it', (url) => {
    expect(refusal(() => validateEndpointUrl(url, false))).toEqual({ code: 'invalid_request', param: 'url' });
  });

  it('warns when the port is not one the egress allows, and not otherwise', () => {
    const only443 = new Set([443]);
    expect(egressWarnings('https://hooks.example.com/x', only443)).toEqual([]);
    expect(egressWarnings('https://hooks.example.com:8443/x', only443)).toEqual([expect.stringMatching(/port 8443 .*\(443\)/)]);
    expect(egressWarnings('https://hooks.example.com:8443/x', new Set([443, 8443]))).toEqual([]);
    expect(egressWarnings('https://hooks.example.com:8443/x', null)).toEqual([]);
  });

  it('allows private literals when private networks are allowed', () => {
    expect(validateEndpointUrl('https://127.0.0.1:8443/hook', true)).toBe('https://127.0.0.1:8443/hook');
  });

  it('checks event types against the known list; empty means all', () => {
    expect(validateEventTypes([])).toEqual([]);
    expect(validateEventTypes(['account.breached', 'account.breached', 'credits.low'])).toEqual(['account.breached', 'credits.low']);
    expect(refusal(() => validateEventTypes(['account.breached', 'account.exploded']))).toEqual({ code: 'invalid_request', param: 'events' });
  });

  it('judges resolved addresses the same way at connect time', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('127.0.0.1')).toBe(false);
    expect(isPublicAddress('::ffff:192.168.0.1')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});
