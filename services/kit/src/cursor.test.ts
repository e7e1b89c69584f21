import { createCursorCodec, pageSize } from './cursor';
import { AppError } from './errors';

describe('opaque cursors', () => {
  const codec = createCursorCodec('test-secret-of-16+');

  it('round-trips a position within the same list', () => {
    const token = codec.encode('accounts:org-1', { n: 42 });
    expect(codec.decode('accounts:org-1', token)).toEqual({ n: 42 });
    const traders = codec.encode('traders:org-1', { t: '2026-01-01T00:00:00.123456+00:00', id: '8e0f2b8e-6a1e-4d36-9a55-1f0bd1d5e0a1' });
    expect(codec.decode('traders:org-1', traders)).toEqual({ t: '2026-01-01T00:00:00.123456+00:00', id: '8e0f2b8e-6a1e-4d36-9a55-1f0bd1d5e0a1' });
  });

  it('decodes to nothing readable: the position is sealed', () => {
    const token = codec.encode('events:org-1:*', { p: 1000015 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(token, 'base64url').toString('latin1');
    expect(bytes).not.toContain('1000015');
    expect(bytes).not.toMatch(/"p"/);
    // Two tokens of the same position differ (a fresh nonce each time): equality says nothing either.
    expect(codec.encode('events:org-1:*', { p: 1000015 })).not.toBe(token);
  });

  it('gives every position of a list the same token length', () => {
    const lengths = new Set([0, 7, 50, 123456, 9_007_199_254_740_991].map((p) => codec.encode('events:org-1:*', { p }).length));
    expect(lengths.size).toBe(1);
  });

  it('refuses a cursor from another organization, list or filter', () => {
    const token = codec.encode('accounts:org-1:*', { n: 42 });
    for (const scope of ['accounts:org-2:*', 'traders:org-1', 'accounts:org-1:active']) {
      expect(() => codec.decode(scope, token)).toThrow(AppError);
    }
    expect(() => createCursorCodec('another-secret-16+').decode('accounts:org-1:*', token)).toThrow(/cursor/);
  });

  it('refuses a cursor with any character changed, added or removed', () => {
    const token = codec.encode('accounts:org-1', { n: 42 });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i += 1) {
      for (const shift of [1, 17]) {
        const replacement = alphabet[(alphabet.indexOf(token[i] as string) + shift) % alphabet.length];
        const tampered = `${token.slice(0, i)}${replacement}${token.slice(i + 1)}`;
        expect(() => codec.decode('accounts:org-1', tampered)).toThrow(AppError);
      }
    }
    for (const bad of [token.slice(1), token.slice(0, -1), `${token}A`, `${token}=`, `${token} `, 'garbage', '', 'x'.repeat(2000)]) {
      expect(() => codec.decode('accounts:org-1', bad)).toThrow(AppError);
    }
  });

  it('clamps page sizes at 200 and defaults to 50', () => {
    expect(pageSize(0)).toBe(50);
    expect(pageSize(500)).toBe(200);
    expect(pageSize(7)).toBe(7);
    expect(() => pageSize(-1)).toThrow(AppError);
  });
});
