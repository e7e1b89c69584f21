/**
 * Consistent hashing of account numbers over the engine's replicas: each replica is placed on a
 * ring at VNODES points (hashes of its id), and an account belongs to the first point at or after
 * its own hash. Every replica computes the same owner from the same membership, and when a replica
 * joins or leaves only the accounts on its arcs move.
 */
const VNODES = 128;

/** FNV-1a, 32 bits, then a final mix (murmur3's fmix32) so nearby inputs spread over the ring. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Ring {
  private readonly points: Uint32Array;
  private readonly owners: string[];

  constructor(readonly members: readonly string[]) {
    const placed: Array<[number, string]> = [];
    for (const m of members) for (let k = 0; k < VNODES; k++) placed.push([hash32(`${m}#${k}`), m]);
    placed.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    this.points = Uint32Array.from(placed.map((p) => p[0]));
    this.owners = placed.map((p) => p[1]);
  }

  /** The replica owning an account (undefined on an empty ring). */
  ownerOf(accountNumber: number): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    const h = hash32(String(accountNumber));
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }
}
