import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentValues } from '@pv-controller/apiserver/storage/recent-values.js';

test('RecentValues keeps at most two generations, and an entry used in the older one survives the next turn', () => {
  const table = new RecentValues<string, number>(2);
  table.set('a', 1);
  table.set('b', 2);
  table.set('c', 3); // {a, b} is now the older generation, {c} the newer
  assert.equal(table.get('a'), 1); // found in the older one: moved to the newer, {c, a}
  table.set('d', 4); // {c, a} older, {d} newer: b is gone
  assert.equal(table.get('b'), undefined);
  assert.equal(table.get('a'), 1);
  assert.equal(table.intern('d', 9), 4);
  assert.equal(table.intern('z', 9), 9);
});
