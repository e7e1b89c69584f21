import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ChurnMap, ChurnSet } from './churn-collections';

/** A small deterministic generator, so that a failing sequence can be replayed. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('ChurnMap', () => {
  it('answers as a Map does through a long run of sets, gets and deletes', () => {
    const next = sequence(7);
    const map = new Map<number, string>();
    const churn = new ChurnMap<number, string>();
    for (let step = 0; step < 5000; step += 1) {
      const key = Math.floor(next() * 64);
      const op = next();
      if (op < 0.45) {
        expect(churn.set(key, `v${step}`)).toBe(churn);
        map.set(key, `v${step}`);
      } else if (op < 0.8) {
        expect(churn.delete(key)).toBe(map.delete(key));
      } else {
        expect(churn.get(key)).toBe(map.get(key));
        expect(churn.has(key)).toBe(map.has(key));
      }
      expect(churn.size).toBe(map.size);
    }
    const sorted = (entries: Iterable<[number, string]>) => [...entries].sort(([a], [b]) => a - b);
    expect(sorted(churn)).toEqual(sorted(map));
    expect([...churn.keys()].sort((a, b) => a - b)).toEqual([...map.keys()].sort((a, b) => a - b));
    expect([...churn.values()].sort()).toEqual([...map.values()].sort());
    churn.clear();
    expect(churn.size).toBe(0);
    expect(churn.get(0)).toBeUndefined();
  });

  it('keeps string keys apart from inherited names', () => {
    const churn = new ChurnMap<string, number>();
    expect(churn.get('constructor')).toBeUndefined();
    expect(churn.has('__proto__')).toBe(false);
    churn.set('__proto__', 1).set('toString', 2).set('b', 3);
    expect([...churn.entries()].sort()).toEqual([
      ['__proto__', 1],
      ['b', 3],
      ['toString', 2],
    ]);
    expect(churn.delete('toString')).toBe(true);
    expect(churn.delete('toString')).toBe(false);
    expect(churn.size).toBe(2);
  });

  it('forEach, as a Map: an entry deleted before its turn is skipped, and one added is not visited', () => {
    const churn = new ChurnMap<number, string>();
    for (const id of [1, 3, 5, 7]) churn.set(id, `s${id}`);
    const seen: number[] = [];
    churn.forEach((_value, key, map) => {
      seen.push(key);
      // What a session's destroy does: each stream's destroy deletes it (and here, a later one too).
      map.delete(key);
      if (key === 3) map.delete(5);
      if (key === 1) map.set(9, 's9');
    });
    expect(seen).toEqual([1, 3, 7]);
    expect([...churn.keys()]).toEqual([9]);
  });
});

describe('ChurnSet', () => {
  it('answers as a Set does through a long run of adds, deletes and lookups', () => {
    const next = sequence(11);
    const items = Array.from({ length: 40 }, (_v, i) => ({ i }));
    const set = new Set<{ i: number }>();
    const churn = new ChurnSet<{ i: number }>();
    for (let step = 0; step < 5000; step += 1) {
      const item = items[Math.floor(next() * items.length)];
      const op = next();
      if (op < 0.45) expect(churn.add(item)).toBe(churn);
      if (op < 0.45) set.add(item);
      else if (op < 0.8) expect(churn.delete(item)).toBe(set.delete(item));
      else expect(churn.has(item)).toBe(set.has(item));
      expect(churn.size).toBe(set.size);
    }
    // A Set's order: insertion.
    expect([...churn]).toEqual([...set]);
    expect([...churn.entries()]).toEqual([...set.entries()]);
  });

  it('forEach, as a Set: an item deleted before its turn is skipped', () => {
    const a = { n: 'a' };
    const b = { n: 'b' };
    const c = { n: 'c' };
    const churn = new ChurnSet<{ n: string }>().add(a).add(b).add(c);
    const seen: string[] = [];
    churn.forEach((item, same, set) => {
      expect(same).toBe(item);
      seen.push(item.n);
      set.delete(item);
      if (item === a) set.delete(b);
    });
    expect(seen).toEqual(['a', 'c']);
    expect(churn.size).toBe(0);
  });
});

/**
 * The reason for both: V8 promotes what a long-lived Map held. A child process with the GC
 * exposed keeps 32 entries in a collection made (and promoted) first, replaces them first in,
 * first out, and forces young-generation collections; it prints the old space's growth.
 */
describe('what a long-lived collection promotes', () => {
  const script = `
    const { ChurnMap } = require(${JSON.stringify(path.join(__dirname, '../dist/churn-collections.js'))});
    const v8 = require('v8');
    const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
    const collection = process.argv[1] === 'map' ? new Map() : new ChurnMap();
    let id = 0;
    for (; id < 32; id += 1) collection.set(id, { payload: new Array(64).fill(id) });
    gc(); gc();
    const before = oldSpace();
    for (let round = 0; round < 400; round += 1) {
      for (let i = 0; i < 32; i += 1) {
        collection.delete(id - 32);
        collection.set(id, { payload: new Array(64).fill(id) });
        id += 1;
      }
      gc({ type: 'minor' });
    }
    gc({ type: 'minor' }); gc({ type: 'minor' });
    console.log(oldSpace() - before);
  `;
  const promoted = (kind: 'map' | 'churn'): number => {
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', script, kind], { encoding: 'utf8', timeout: 60_000 });
    if (run.status !== 0) throw new Error(run.stderr);
    return Number(run.stdout.trim());
  };

  it('a Map promotes its entries; a ChurnMap lets them die young', () => {
    const byMap = promoted('map');
    const byChurnMap = promoted('churn');
    // 12,800 entries of about 600 bytes went through each.
    expect(byMap).toBeGreaterThan(2_000_000);
    expect(byChurnMap).toBeLessThan(byMap / 5);
  });
});
