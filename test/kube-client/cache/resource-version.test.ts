import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNewerCopy, newerCopyOf, newestOf, rvNumber } from '../../../src/kube-client/cache/resource-version.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';

function copy(rv: string | undefined, uid = 'u1'): PersistentVolume {
  return { metadata: { name: 'pv', uid, ...(rv === undefined ? {} : { resourceVersion: rv }) }, spec: {} };
}

test('resourceVersions compare as integers: "10" is newer than "2"; an unparsable one is neither newer nor older', () => {
  assert.equal(rvNumber('10'), 10);
  assert.equal(rvNumber('x'), -1);
  assert.equal(isNewerCopy(copy('10'), copy('2')), true);
  assert.equal(isNewerCopy(copy('2'), copy('10')), false);
  assert.equal(isNewerCopy(copy('5'), copy('5')), false);
  assert.equal(isNewerCopy(copy('5'), copy(undefined)), false);
  assert.equal(isNewerCopy(copy(undefined), copy('5')), false);
});

test('newestOf picks the newest copy; earlier copies win ties and copies whose order is unknown', () => {
  const [a, b, c] = [copy('3'), copy('7'), copy('7')];
  assert.equal(newestOf(a, undefined, b, c), b);
  const unknown = copy('');
  assert.equal(newestOf(unknown, a), unknown);
  assert.equal(newestOf(undefined, undefined), undefined);
});

test('newerCopyOf takes the other copy only when it is the same object (uid) and newer', () => {
  const given = copy('5');
  assert.equal(newerCopyOf(given, copy('6')).metadata.resourceVersion, '6');
  assert.equal(newerCopyOf(given, copy('6', 'other-uid')), given);
  assert.equal(newerCopyOf(given, copy('4')), given);
  assert.equal(newerCopyOf(given, undefined), given);
});
