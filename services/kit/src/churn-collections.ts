/**
 * A Map and a Set for entries that come and go with each call or message (in-flight streams,
 * calls, waiters) in a structure that lives as long as the process: V8's own Map and Set promote
 * everything they ever held to the old generation.
 *
 * Why: a Map or Set keeps its entries in an ordered hash table, and V8 replaces the table with a
 * new one whenever deletions have filled it (`OrderedHashTable::Rehash`). The old table is not
 * cleared: it keeps its entries and a pointer to the new table, for iterators that were walking
 * it. Once one table of a long-lived Map is in the old generation, each dead table there keeps the
 * next one alive until a full collection, every table keeps the entries it held, and each
 * young-generation collection (scavenge) copies and finally promotes them all. Measured with a Map
 * of 32 entries replaced first in, first out: 26.6 % of everything the process allocated was
 * promoted, and 0.0 % with an array in its place. A gRPC client with 32 calls in flight promoted
 * 24.7 % (about 7 KB per call), and 0.2 % once the three Map/Set of its path were replaced.
 *
 * These hold the entries in a plain object (dictionary) and an array, whose replaced backing
 * stores point to nothing new. The interface is Map's and Set's; what differs:
 * - `ChurnMap` iterates integer-like keys in ascending order, then the others in insertion order
 *   (an object's property order), not in insertion order alone;
 * - `ChurnSet` finds an entry by a linear search: for a few hundred entries at most (calls in
 *   flight), not for large sets;
 * - iterating (forEach, keys, values, entries) walks a copy made when it starts; forEach skips an
 *   entry deleted while it runs (as Map does) and does not visit one added while it runs;
 * - a `ChurnMap`'s keys are all numbers or all strings (1 and '1' are one property).
 */
export class ChurnMap<K extends string | number, V> {
  private entries_: Record<string | number, { key: K; value: V }> = Object.create(null) as Record<string | number, { key: K; value: V }>;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get [Symbol.toStringTag](): string {
    return 'ChurnMap';
  }

  get(key: K): V | undefined {
    return this.entries_[key]?.value;
  }

  has(key: K): boolean {
    return this.entries_[key] !== undefined;
  }

  set(key: K, value: V): this {
    const entry = this.entries_[key];
    if (entry !== undefined) {
      entry.value = value;
    } else {
      this.entries_[key] = { key, value };
      this.count += 1;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.entries_[key] === undefined) return false;
    delete this.entries_[key];
    this.count -= 1;
    return true;
  }

  clear(): void {
    this.entries_ = Object.create(null) as Record<string | number, { key: K; value: V }>;
    this.count = 0;
  }

  forEach(callback: (value: V, key: K, map: ChurnMap<K, V>) => void, thisArg?: unknown): void {
    for (const entry of Object.values(this.entries_)) {
      // Deleted while this runs: not visited, as with a Map.
      if (this.entries_[entry.key] !== entry) continue;
      callback.call(thisArg, entry.value, entry.key, this);
    }
  }

  *entries(): IterableIterator<[K, V]> {
    for (const entry of Object.values(this.entries_)) yield [entry.key, entry.value];
  }

  *keys(): IterableIterator<K> {
    for (const entry of Object.values(this.entries_)) yield entry.key;
  }

  *values(): IterableIterator<V> {
    for (const entry of Object.values(this.entries_)) yield entry.value;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}

export class ChurnSet<T> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  get [Symbol.toStringTag](): string {
    return 'ChurnSet';
  }

  has(value: T): boolean {
    return this.items.includes(value);
  }

  add(value: T): this {
    if (!this.items.includes(value)) this.items.push(value);
    return this;
  }

  delete(value: T): boolean {
    const at = this.items.indexOf(value);
    if (at === -1) return false;
    this.items.splice(at, 1);
    return true;
  }

  clear(): void {
    this.items = [];
  }

  forEach(callback: (value: T, same: T, set: ChurnSet<T>) => void, thisArg?: unknown): void {
    for (const value of this.items.slice()) {
      if (this.items.includes(value)) callback.call(thisArg, value, value, this);
    }
  }

  *entries(): IterableIterator<[T, T]> {
    for (const value of this.items.slice()) yield [value, value];
  }

  *keys(): IterableIterator<T> {
    yield* this.items.slice();
  }

  *values(): IterableIterator<T> {
    yield* this.items.slice();
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }
}
