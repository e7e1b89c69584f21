/** What a verified API key grants; cached by the SHA-256 of its token. */
export interface VerifiedKey {
  keyId: string;
  organizationId: string;
  scopes: ReadonlySet<string>;
  paid: boolean;
}

/**
 * A bounded LRU of VERIFIED keys only. Failures are never cached: a cached revoked key would
 * answer faster than an unknown one and tell them apart.
 */
export class KeyCache {
  private readonly entries = new Map<string, VerifiedKey>();
  /** Bumped by every invalidation, so a lookup that raced one does not cache a stale answer. */
  private epochValue = 0;

  constructor(private readonly maxEntries = 50_000) {}

  get epoch(): number {
    return this.epochValue;
  }

  get size(): number {
    return this.entries.size;
  }

  get(hash: string): VerifiedKey | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    return entry;
  }

  has(hash: string): boolean {
    return this.entries.has(hash);
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
