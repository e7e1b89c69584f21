import { isUuid, newEventId } from './ids';

describe('ids', () => {
  it('knows a UUID in any case, and nothing else', () => {
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toBe(true);
    expect(isUuid("3f2504e0-4f89-11d3-9a0c-0305e82c3301' OR 1=1")).toBe(false);
    expect(isUuid('3f2504e04f8911d39a0c0305e82c3301')).toBe(false);
    expect(isUuid('')).toBe(false);
    expect(isUuid(undefined)).toBe(false);
  });

  it('makes event ids with the evt_ prefix of SPEC 8, never the same twice', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newEventId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
  });
});
