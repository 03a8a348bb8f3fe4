import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MergedStore } from '../../../src/kube-client/cache/merged-store.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';

function pv(name: string, rv: string, phase = 'Available'): PersistentVolume {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, resourceVersion: rv }, spec: {}, status: { phase } };
}

test('a stale informer event never overwrites a newer own write', () => {
  const store = new MergedStore<PersistentVolume>();
  store.applyInformerUpsert(pv('a', '5', 'Available'));
  store.recordWrite(pv('a', '7', 'Bound'));
  assert.equal(store.applyInformerUpsert(pv('a', '6', 'Available')), false);
  assert.equal(store.get('a')?.status?.phase, 'Bound');
  assert.equal(store.applyInformerUpsert(pv('a', '7', 'Bound')), true, 'the echo of our own write (equal rv) passes');
  assert.equal(store.applyInformerUpsert(pv('a', '8', 'Released')), true);
  assert.equal(store.get('a')?.status?.phase, 'Released');
});

test('resourceVersions compare as integers: 10 is newer than 9', () => {
  const store = new MergedStore<PersistentVolume>();
  store.recordWrite(pv('a', '10', 'Bound'));
  assert.equal(store.applyInformerUpsert(pv('a', '9', 'Available')), false);
  assert.equal(store.get('a')?.status?.phase, 'Bound');
});

test('a delete then a stale MODIFIED does not resurrect the object', () => {
  const store = new MergedStore<PersistentVolume>();
  store.applyInformerUpsert(pv('a', '3'));
  store.applyInformerDelete(pv('a', '9'));
  assert.equal(store.applyInformerUpsert(pv('a', '8')), false);
  assert.equal(store.get('a'), undefined);
  store.recordDelete('b', pv('b', '4'));
  assert.equal(store.applyInformerUpsert(pv('b', '4')), false, 'own delete: the last seen copy stays dead');
  assert.equal(store.get('b'), undefined);
  assert.equal(store.applyInformerUpsert(pv('a', '12')), true, 'a re-created object (newer rv) is accepted');
});

test('change listeners see the new copy, the previous one and who made the change', () => {
  const store = new MergedStore<PersistentVolume>();
  const seen: string[] = [];
  store.onChange((key, obj, prev, origin) =>
    seen.push(`${key}:${prev?.metadata.resourceVersion ?? '-'}->${obj?.metadata.resourceVersion ?? '-'}:${origin}`),
  );
  store.applyInformerUpsert(pv('a', '1'));
  store.recordWrite(pv('a', '2'));
  store.applyInformerUpsert(pv('a', '1'));
  store.applyInformerDelete(pv('a', '3'));
  assert.deepEqual(seen, ['a:-->1:informer', 'a:1->2:own-write', 'a:2->-:informer']);
});

test('a re-list drops objects it no longer holds but keeps own writes newer than the list', () => {
  const store = new MergedStore<PersistentVolume>();
  store.applyInformerUpsert(pv('gone', '2'));
  store.applyInformerUpsert(pv('kept', '3'));
  store.recordWrite(pv('mine', '20'));
  assert.equal(store.hasSynced(), false);
  store.replaceAll([pv('kept', '3'), pv('new', '11')], '15');
  assert.equal(store.hasSynced(), true);
  assert.deepEqual(store.keys().sort(), ['kept', 'mine', 'new']);
  assert.equal(store.applyInformerUpsert(pv('gone', '2')), false, 'the re-list left a tombstone');
});

test('wasDeleted vouches for exactly the uid whose deletion the store saw, by watch, relist or own delete', () => {
  const withUid = (name: string, rv: string, uid: string): PersistentVolume => ({ ...pv(name, rv), metadata: { name, resourceVersion: rv, uid } });
  const store = new MergedStore<PersistentVolume>();
  store.applyInformerUpsert(withUid('a', '3', 'uid-a'));
  assert.equal(store.wasDeleted('a', 'uid-a'), false, 'present: not deleted');
  store.applyInformerDelete(withUid('a', '4', 'uid-a'));
  assert.equal(store.wasDeleted('a', 'uid-a'), true);
  assert.equal(store.wasDeleted('a', 'uid-other'), false, 'another incarnation is not vouched for');
  store.applyInformerUpsert(withUid('a', '6', 'uid-a2'));
  assert.equal(store.wasDeleted('a', 'uid-a'), false, 'a re-created object clears the tombstone: callers read live again');

  store.applyInformerUpsert(withUid('b', '7', 'uid-b'));
  store.replaceAll([], '9');
  assert.equal(store.wasDeleted('b', 'uid-b'), true, 'a consistent relist without it');

  store.applyInformerUpsert(withUid('c', '10', 'uid-c'));
  store.recordDelete('c', withUid('c', '11', 'uid-c'));
  assert.equal(store.wasDeleted('c', 'uid-c'), true, 'our own DELETE');

  store.applyInformerUpsert(withUid('d', '12', 'uid-d'));
  store.applyInformerDelete(withUid('d', '13', 'uid-stale'));
  assert.equal(store.wasDeleted('d', 'uid-stale'), false, 'a deletion event of another incarnation than the one held vouches for nothing');
});

test('copies are kept without managedFields, whatever told the store', () => {
  const store = new MergedStore<PersistentVolume>();
  const withRecord = (name: string, rv: string): PersistentVolume => ({ ...pv(name, rv), metadata: { name, resourceVersion: rv, managedFields: [{ manager: 'm' }] } });
  store.replaceAll([withRecord('c', '3')], '3');
  store.applyInformerUpsert(withRecord('a', '4'));
  store.recordWrite(withRecord('b', '5'));
  for (const name of ['a', 'b', 'c']) {
    assert.equal(store.get(name)?.metadata.resourceVersion !== undefined, true, name);
    assert.equal(store.get(name)?.metadata.managedFields, undefined, name);
  }
});
