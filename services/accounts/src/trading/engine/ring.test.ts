import { Ring } from './ring';

const accounts = Array.from({ length: 20_000 }, (_, i) => 100_000 + i);

it('splits accounts about evenly over the replicas', () => {
  const ring = new Ring(['a', 'b']);
  const onA = accounts.filter((n) => ring.ownerOf(n) === 'a').length;
  expect(onA / accounts.length).toBeGreaterThan(0.4);
  expect(onA / accounts.length).toBeLessThan(0.6);
});

it('moves only the accounts of a replica that leaves, and the same ones back when it returns', () => {
  const three = new Ring(['a', 'b', 'c']);
  const two = new Ring(['a', 'c']);
  for (const n of accounts) {
    if (three.ownerOf(n) !== 'b') expect(two.ownerOf(n)).toBe(three.ownerOf(n));
    else expect(['a', 'c']).toContain(two.ownerOf(n));
  }
  expect(new Ring(['c', 'b', 'a']).ownerOf(123_456)).toBe(three.ownerOf(123_456));
});

it('an empty ring owns nothing; a single replica owns everything', () => {
  expect(new Ring([]).ownerOf(1)).toBeUndefined();
  expect(accounts.every((n) => new Ring(['solo']).ownerOf(n) === 'solo')).toBe(true);
});
