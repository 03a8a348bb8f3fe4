import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/kube/errors.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { applyPatch, applyMergePatch } from '../../../src/apiserver/patch/index.js';
import type { ResourceStrategy } from '../../../src/apiserver/resources/strategy.js';

function strategyFor(kind: string): ResourceStrategy {
  return {
    info: { group: '', version: 'v1', plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), kind,
      listKind: `${kind}List`, namespaced: false, shortNames: [], verbs: [], hasStatus: true },
    defaults: () => undefined,
    prepareForCreate: () => undefined,
    validateCreate: () => [],
    prepareForUpdate: () => undefined,
    validateUpdate: () => [],
    fields: () => ({}),
    tableColumns: [],
    tableRow: () => [],
  };
}
const PV = strategyFor('PersistentVolume');
const PVC = strategyFor('PersistentVolumeClaim');
const SMP = 'application/strategic-merge-patch+json';

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    return { code: err.code, reason: err.reason, message: err.message };
  }
  assert.fail('expected an error');
}

const a1: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {
    name: 'a',
    finalizers: ['example.com/one', 'example.com/two'],
    labels: { a: 'x', b: 'y' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}', keep: 'me' },
  },
  spec: {
    accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
    mountOptions: ['noatime', 'nfsvers=4'],
    capacity: { storage: '1Gi' },
    hostPath: { path: '/tmp/a' },
  },
  status: { phase: 'Available' },
};

test('merge patch merges maps, deletes on null and replaces arrays (RFC 7386)', () => {
  assert.deepEqual(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }), { a: 'z', c: { d: 'e' } });
  assert.deepEqual(applyMergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] });
  assert.deepEqual(applyMergePatch({ a: 'b' }, ['c']), ['c']);
  assert.deepEqual(applyMergePatch('x', { a: { b: null, c: 1 } }), { a: { c: 1 } });
  assert.deepEqual(applyMergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
});

test('kubectl label/annotate merge patches change only the named keys and never mutate the input', () => {
  const before = structuredClone(a1);
  const out = applyPatch('application/merge-patch+json; charset=utf-8', a1, { metadata: { labels: { a: null, c: 'z' } } }, PV);
  assert.deepEqual(out.metadata.labels, { b: 'y', c: 'z' });
  assert.deepEqual(out.metadata.finalizers, a1.metadata.finalizers);
  assert.deepEqual(a1, before);
});

test('the strategic merge patch kubectl apply sent for a1.yaml → a2.yaml gives the a2 object', () => {
  const lastApplied = '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"a"}}';
  const patch = {
    metadata: {
      '$deleteFromPrimitiveList/finalizers': ['example.com/one'],
      '$setElementOrder/finalizers': ['example.com/two'],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      labels: { b: null },
    },
    spec: { accessModes: ['ReadWriteOnce'], mountOptions: ['noatime'] },
  };
  const out = applyPatch(SMP, a1, patch, PV);
  assert.deepEqual(out.metadata.finalizers, ['example.com/two']);
  assert.deepEqual(out.metadata.labels, { a: 'x' });
  assert.deepEqual(out.metadata.annotations, { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied, keep: 'me' });
  assert.deepEqual(out.spec, { accessModes: ['ReadWriteOnce'], mountOptions: ['noatime'], capacity: { storage: '1Gi' }, hostPath: { path: '/tmp/a' } });
  assert.equal(Object.keys(out.metadata).some((k) => k.startsWith('$')), false);
});

test('finalizers merge as a set and $setElementOrder orders them', () => {
  const out = applyPatch(SMP, a1, { metadata: { finalizers: ['example.com/three', 'example.com/one'] } }, PV);
  assert.deepEqual(out.metadata.finalizers, ['example.com/one', 'example.com/two', 'example.com/three']);
  const ordered = applyPatch(SMP, a1, {
    metadata: { '$setElementOrder/finalizers': ['example.com/two', 'example.com/one'] },
  }, PV);
  assert.deepEqual(ordered.metadata.finalizers, ['example.com/two', 'example.com/one']);
});

test('ownerReferences merge by uid and $patch: delete removes one', () => {
  const obj: KubeObject = { metadata: { name: 'a', ownerReferences: [
    { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'u1' },
    { apiVersion: 'v1', kind: 'Pod', name: 'p2', uid: 'u2' },
  ] } };
  const out = applyPatch(SMP, obj, { metadata: { ownerReferences: [
    { uid: 'u1', controller: true },
    { uid: 'u3', apiVersion: 'v1', kind: 'Pod', name: 'p3' },
    { uid: 'u2', $patch: 'delete' },
  ] } }, PV);
  assert.deepEqual(out.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'u1', controller: true },
    { uid: 'u3', apiVersion: 'v1', kind: 'Pod', name: 'p3' },
  ]);
});

test('PVC status.conditions merge by type; atomic lists and $patch: replace replace whole', () => {
  const claim: KubeObject = { metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] }, status: { conditions: [
    { type: 'Resizing', status: 'True' }, { type: 'FileSystemResizePending', status: 'True' },
  ] } };
  const out = applyPatch(SMP, claim, { status: { conditions: [{ type: 'Resizing', status: 'False' }] } }, PVC);
  assert.deepEqual((out.status as { conditions: unknown[] }).conditions, [
    { type: 'Resizing', status: 'False' }, { type: 'FileSystemResizePending', status: 'True' },
  ]);
  const replaced = applyPatch(SMP, claim, { status: { conditions: [{ $patch: 'replace' }, { type: 'X', status: 'True' }] } }, PVC);
  assert.deepEqual((replaced.status as { conditions: unknown[] }).conditions, [{ type: 'X', status: 'True' }]);
  const onPv = applyPatch(SMP, a1, { spec: { $patch: 'replace', hostPath: { path: '/new' } } }, PV);
  assert.deepEqual(onPv.spec, { hostPath: { path: '/new' } });
  const deleted = applyPatch(SMP, a1, { status: { $patch: 'delete' } }, PV);
  assert.deepEqual(deleted.status, {});
});

test('$retainKeys drops unlisted keys and rejects patch content outside the list', () => {
  const obj: KubeObject = { metadata: { name: 'a' }, spec: { hostPath: { path: '/x' }, nfs: { server: 's', path: '/p' } } };
  const out = applyPatch(SMP, obj, { spec: { $retainKeys: ['nfs'], nfs: { path: '/q' } } }, PV);
  assert.deepEqual(out.spec, { nfs: { server: 's', path: '/q' } });
  assert.equal(statusOf(() => applyPatch(SMP, obj, { spec: { $retainKeys: ['nfs'], local: { path: '/z' } } }, PV)).code, 422);
  assert.equal(statusOf(() => applyPatch(SMP, obj, { spec: { $retainKeys: 'nfs' } }, PV)).code, 400);
});

test('malformed strategic directives are 400 Bad Request', () => {
  assert.equal(statusOf(() => applyPatch(SMP, a1, { metadata: { $patch: 'explode' } }, PV)).code, 400);
  assert.equal(statusOf(() => applyPatch(SMP, a1, { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }, PV)).code, 400);
  assert.equal(statusOf(() => applyPatch(SMP, a1, { metadata: { ownerReferences: [{ name: 'no-uid' }] } }, PV)).code, 400);
  assert.equal(statusOf(() => applyPatch(SMP, a1, [{ op: 'add' }], PV)).code, 400);
});

test('JSON patch applies operations including test, 422 when it does not apply, 400 when malformed', () => {
  const JP = 'application/json-patch+json';
  const out = applyPatch(JP, a1, [
    { op: 'test', path: '/status/phase', value: 'Available' },
    { op: 'replace', path: '/spec/capacity/storage', value: '2Gi' },
    { op: 'add', path: '/metadata/finalizers/-', value: 'example.com/three' },
    { op: 'remove', path: '/metadata/labels/a' },
  ], PV);
  assert.equal((out.spec as { capacity: { storage: string } }).capacity.storage, '2Gi');
  assert.deepEqual(out.metadata.finalizers, ['example.com/one', 'example.com/two', 'example.com/three']);
  assert.deepEqual(out.metadata.labels, { b: 'y' });
  assert.equal((a1.spec as { capacity: { storage: string } }).capacity.storage, '1Gi');

  const failedTest = statusOf(() => applyPatch(JP, a1, [{ op: 'test', path: '/status/phase', value: 'Bound' }], PV));
  assert.deepEqual([failedTest.code, failedTest.reason, failedTest.message],
    [422, 'Invalid', 'the server rejected our request due to an error in our request']);
  assert.equal(statusOf(() => applyPatch(JP, a1, [{ op: 'remove', path: '/spec/nothing' }], PV)).code, 422);
  assert.equal(statusOf(() => applyPatch(JP, a1, { op: 'remove', path: '/spec' }, PV)).code, 400);
  assert.equal(statusOf(() => applyPatch(JP, a1, Buffer.from('[{"op":'), PV)).code, 400);
});

test('raw bytes are decoded and unsupported content types get 415', () => {
  const out = applyPatch('application/merge-patch+json', a1, Buffer.from('{"metadata":{"labels":{"n":"1"}}}'), PV);
  assert.equal(out.metadata.labels?.n, '1');
  for (const type of ['application/apply-patch+yaml', 'application/json', 'text/plain']) {
    const s = statusOf(() => applyPatch(type, a1, {}, PV));
    assert.deepEqual([s.code, s.reason], [415, 'UnsupportedMediaType']);
  }
});
