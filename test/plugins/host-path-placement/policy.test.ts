import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chooseRoot, placementOf, placementProblem, type RootCandidate } from '../../../src/plugins/host-path/placement.js';

const Gi = 1024n ** 3n;
const root = (name: string, roomGi: bigint, givenGi: bigint, weight = 1): RootCandidate => ({ root: name, roomBytes: roomGi * Gi, givenBytes: givenGi * Gi, weight });

describe('host-path placement policies', () => {
  const roots = [root('/mnt/a', 10n, 90n), root('/mnt/b', 50n, 50n), root('/mnt/c', 30n, 0n)];

  test('leastAllocated takes the root with the most room left', () => {
    assert.equal(chooseRoot(roots, 5n * Gi, 'leastAllocated')?.root, '/mnt/b');
  });

  test('mostAllocated takes the fullest root that still fits the volume', () => {
    assert.equal(chooseRoot(roots, 5n * Gi, 'mostAllocated')?.root, '/mnt/a');
    assert.equal(chooseRoot(roots, 20n * Gi, 'mostAllocated')?.root, '/mnt/c', 'a root without room for the volume is never chosen');
  });

  test('no root is chosen when none can hold the volume (a volume never spans roots)', () => {
    assert.equal(chooseRoot(roots, 51n * Gi, 'leastAllocated'), undefined);
    assert.equal(chooseRoot(roots, 51n * Gi, 'weighted'), undefined);
  });

  test('weighted fills roots in proportion to their weights and skips weight 0', () => {
    const candidates = new Map([
      ['/mnt/x', root('/mnt/x', 1000n, 0n, 3)],
      ['/mnt/y', root('/mnt/y', 1000n, 0n, 1)],
      ['/mnt/z', root('/mnt/z', 1000n, 0n, 0)],
    ]);
    const placed = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const chosen = chooseRoot([...candidates.values()], Gi, 'weighted');
      assert.ok(chosen);
      placed.set(chosen.root, (placed.get(chosen.root) ?? 0) + 1);
      candidates.set(chosen.root, { ...chosen, givenBytes: chosen.givenBytes + Gi, roomBytes: chosen.roomBytes - Gi });
    }
    assert.deepEqual(Object.fromEntries(placed), { '/mnt/x': 30, '/mnt/y': 10 });
  });

  test('ties go to the first root in sort order, whatever order the roots come in', () => {
    const tied = [root('/mnt/b', 10n, 0n), root('/mnt/a', 10n, 0n)];
    assert.equal(chooseRoot(tied, Gi, 'leastAllocated')?.root, '/mnt/a');
    assert.equal(chooseRoot([...tied].reverse(), Gi, 'mostAllocated')?.root, '/mnt/a');
  });

  test('the placement parameter defaults to leastAllocated and anything unknown is a problem', () => {
    assert.equal(placementOf({}), 'leastAllocated');
    assert.equal(placementOf({ placement: 'weighted' }), 'weighted');
    assert.equal(placementProblem('mostAllocated'), undefined);
    assert.match(placementProblem('random') ?? '', /must be one of leastAllocated, mostAllocated, weighted, got "random"/);
  });
});
