import type { KeyLimits } from '../limits';

/** What a verified API key grants; cached by the SHA-256 of its token. */
export interface VerifiedKey {
  keyId: string;
  organizationId: string;
  /** The key's mode (SPEC 13): false for a pfx_test_ key. */
  livemode: boolean;
  scopes: ReadonlySet<string>;
  paid: boolean;
  /** On the cache's clock (monotonic ms): the key must not be served from cache from then on. Absent: no expiry. */
  validUntil?: number;
  limits?: KeyLimits;
}

/** A monotonic clock in milliseconds: wall-clock steps never bring an expired key back. */
export const monotonicMs = (): number => performance.now();

/**
 * A bounded LRU of VERIFIED keys only. Failures are never cached: a cached revoked key would
 * answer faster than an unknown one and tell them apart. An entry past its `validUntil` is
 * dropped when it is next asked for, without a lookup, and the caller verifies the key like any
 * unknown one (so an expired key costs what an unknown key costs).
 */
export class KeyCache {
  private readonly entries = new Map<string, VerifiedKey>();
  /** Bumped by every invalidation, so a lookup that raced one does not cache a stale answer. */
  private epochValue = 0;

  constructor(
    private readonly maxEntries = 50_000,
    private readonly now: () => number = monotonicMs,
  ) {}

  get epoch(): number {
    return this.epochValue;
  }

  get size(): number {
    return this.entries.size;
  }

  get(hash: string): VerifiedKey | undefined {
    const entry = this.live(hash);
    if (entry === undefined) return undefined;
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    return entry;
  }

  has(hash: string): boolean {
    return this.live(hash) !== undefined;
  }

  /** The entry unless it expired; an expired one is dropped. */
  private live(hash: string): VerifiedKey | undefined {
    const entry = this.entries.get(hash);
    if (entry?.validUntil !== undefined && this.now() >= entry.validUntil) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  /** Stores only when no invalidation happened since `epochAtLookup`. */
  set(hash: string, key: VerifiedKey, epochAtLookup: number): void {
    if (epochAtLookup !== this.epochValue) return;
    this.entries.delete(hash);
    this.entries.set(hash, key);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  dropKey(keyId: string): void {
    this.epochValue += 1;
    for (const [hash, entry] of this.entries) if (entry.keyId === keyId) this.entries.delete(hash);
  }

  dropOrganization(organizationId: string): void {
    this.epochValue += 1;
    for (const [hash, entry] of this.entries) if (entry.organizationId === organizationId) this.entries.delete(hash);
  }

  clear(): void {
    this.epochValue += 1;
    this.entries.clear();
  }
}
