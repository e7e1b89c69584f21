import { createCursorCodec, pageSize } from './cursor';
import { AppError } from './errors';

describe('opaque cursors', () => {
  const codec = createCursorCodec('test-secret');

  it('round-trips a position within the same list', () => {
    const token = codec.encode('accounts:org-1', { n: 42 });
    expect(codec.decode('accounts:org-1', token)).toEqual({ n: 42 });
  });

  it('refuses a cursor from another organization or list', () => {
    const token = codec.encode('accounts:org-1', { n: 42 });
    expect(() => codec.decode('accounts:org-2', token)).toThrow(AppError);
    expect(() => codec.decode('traders:org-1', token)).toThrow(/cursor/);
  });

  it('refuses a tampered cursor', () => {
    const token = codec.encode('accounts:org-1', { n: 42 });
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ n: 1 })).toString('base64url');
    expect(() => codec.decode('accounts:org-1', `${forged}.${sig}`)).toThrow(AppError);
    expect(() => codec.decode('accounts:org-1', `${payload}.x${sig.slice(1)}`)).toThrow(AppError);
    expect(() => codec.decode('accounts:org-1', 'garbage')).toThrow(AppError);
  });

  it('clamps page sizes at 200 and defaults to 50', () => {
    expect(pageSize(0)).toBe(50);
    expect(pageSize(500)).toBe(200);
    expect(pageSize(7)).toBe(7);
    expect(() => pageSize(-1)).toThrow(AppError);
  });
});
