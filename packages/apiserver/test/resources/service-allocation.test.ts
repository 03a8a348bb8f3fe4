import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextClusterIP } from '@pv-controller/apiserver/resources/core/service-allocation.js';

const hosts = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `10.0.0.${from + i}`);

test('a ClusterIP is picked at random among the free addresses above the 16 kept for static allocation, then among those', () => {
  const used = new Set(['10.0.0.1']);
  assert.equal(nextClusterIP(used, () => 0), '10.0.0.17');
  assert.equal(nextClusterIP(used, () => 0.999999), '10.0.0.254');
  const picked = new Set(Array.from({ length: 200 }, () => nextClusterIP(used)));
  assert.ok(picked.size > 1, 'not always the same address');
  for (const ip of picked) assert.ok(Number(ip?.split('.')[3]) >= 17, String(ip));
  const upperFull = new Set([...used, ...hosts(17, 254)]);
  assert.equal(nextClusterIP(upperFull, () => 0), '10.0.0.2');
  assert.equal(nextClusterIP(new Set([...upperFull, ...hosts(2, 16)])), undefined);
});
