import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { applyPatch, applyMergePatch, applyStrategicMergePatch, PatchApplyError } from '@pv-controller/apiserver/endpoints/patch/index.js';
import type { JsonObject } from '@pv-controller/apiserver/endpoints/patch/json-value.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';

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

test('finalizers merge as a set, in kube-apiserver\'s order, and $setElementOrder orders them', () => {
  const out = applyPatch(SMP, a1, { metadata: { finalizers: ['example.com/three', 'example.com/one'] } }, PV);
  assert.deepEqual(out.metadata.finalizers, ['example.com/three', 'example.com/one', 'example.com/two']);
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

const JSON_PATCH = 'application/json-patch+json';

/** An `add` of `kib` KiB under mountOptions and `copies` copies of the list onto its own end, doubling it each time. */
function doublingPatch(kib: number, copies: number): unknown[] {
  const ops: unknown[] = [{ op: 'add', path: '/spec/mountOptions', value: ['x'.repeat(kib * 1024)] }];
  for (let i = 0; i < copies; i++) ops.push({ op: 'copy', from: '/spec/mountOptions', path: '/spec/mountOptions/-' });
  return ops;
}

test('JSON patch copies may add 3 MiB in all: the 19-copy doubling stops at the limit with the generic 422', () => {
  const before = process.memoryUsage().rss;
  let thrown: unknown;
  try {
    applyPatch(JSON_PATCH, a1, doublingPatch(1, 19), PV);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof PatchApplyError, String(thrown));
  assert.deepEqual(thrown.toStatus(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422,
  });
  assert.match(thrown.detail, /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  // A safety bound, not a measurement: the unbounded patch builds a 512 MiB list.
  assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'the refused patch never built its result');
  const fine = applyPatch(JSON_PATCH, a1, doublingPatch(1, 10), PV);
  assert.equal((fine.spec as { mountOptions: unknown[] }).mountOptions.length, 11, 'ten copies of ~1 MiB in all are allowed');
});

test('JSON patch paths name members of the document, never inherited properties', () => {
  for (const op of [
    { op: 'copy', from: '/constructor', path: '/metadata/x' },
    { op: 'move', from: '/spec/mountOptions/length', path: '/metadata/x' },
    { op: 'test', path: '/metadata/toString', value: 1 },
    { op: 'add', path: '/__proto__/polluted', value: 1 },
    { op: 'remove', path: '/spec/hasOwnProperty' },
  ]) {
    assert.deepEqual(statusOf(() => applyPatch(JSON_PATCH, a1, [op], PV)).code, 422, JSON.stringify(op));
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('JSON patch array indexes are read as kube-apiserver reads them: Atoi, negative from the end, 422 past it', () => {
  const mountOptions = (ops: unknown[]) => (applyPatch(JSON_PATCH, a1, ops, PV).spec as { mountOptions: string[] }).mountOptions;
  assert.deepEqual(mountOptions([{ op: 'replace', path: '/spec/mountOptions/01', value: 'x' }]), ['noatime', 'x']);
  assert.deepEqual(mountOptions([{ op: 'add', path: '/spec/mountOptions/+2', value: 'x' }]), ['noatime', 'nfsvers=4', 'x']);
  assert.deepEqual(mountOptions([{ op: 'add', path: '/spec/mountOptions/-1', value: 'x' }]), ['noatime', 'nfsvers=4', 'x']);
  assert.deepEqual(mountOptions([{ op: 'remove', path: '/spec/mountOptions/-2' }]), ['nfsvers=4']);
  for (const op of [
    { op: 'add', path: '/spec/mountOptions/3', value: 'x' },
    { op: 'add', path: '/spec/mountOptions/x', value: 'x' },
    { op: 'add', path: '/spec/mountOptions/-4', value: 'x' },
    { op: 'copy', from: '/spec/mountOptions/0', path: '/spec/mountOptions/5' },
    { op: 'test', path: '/spec/mountOptions/2', value: 'x' },
  ]) {
    assert.deepEqual(statusOf(() => applyPatch(JSON_PATCH, a1, [op], PV)).code, 422, JSON.stringify(op));
  }
});

test('a JSON patch that writes under a missing parent or moves a value into itself is 422, not a crash', () => {
  for (const op of [
    { op: 'copy', from: '/spec/mountOptions', path: '/spec/nope/-' },
    { op: 'move', from: '/spec/mountOptions', path: '/spec/nope/x' },
    { op: 'move', from: '/spec', path: '/spec/x' },
    { op: 'add', path: '/spec/capacity/storage/x', value: 1 },
    { op: 'copy', from: '/labels/metadata', path: '' },
    { op: 'add', path: '', value: { a: 1 } },
    { op: 'remove', path: '' },
    { op: 'move', from: '', path: '/spec/x' },
  ]) {
    assert.deepEqual(statusOf(() => applyPatch(JSON_PATCH, a1, [op], PV)).code, 422, JSON.stringify(op));
  }
});

test('a patched object larger than a request body may be is 413, for every patch type', () => {
  const big = 'y'.repeat(2 * 1024 * 1024);
  const grown = { ...a1, metadata: { ...a1.metadata, annotations: { big } } };
  const cases: Array<[string, unknown]> = [
    ['application/merge-patch+json', { spec: { mountOptions: [big] } }],
    [SMP, { spec: { mountOptions: [big] } }],
    [JSON_PATCH, [{ op: 'add', path: '/spec/mountOptions', value: [big] }]],
  ];
  for (const [type, patch] of cases) {
    const s = statusOf(() => applyPatch(type, grown, patch, PV));
    assert.deepEqual([s.code, s.reason, s.message], [413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'], type);
  }
});

/**
 * Runs `fn` with JSON.stringify counted, throwing once it has been called `limit` times: strategic
 * merge compares list elements through their JSON text, so this bounds the comparisons made.
 */
function withStringifyBudget<T>(limit: number, fn: () => T): T {
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    if (++calls > limit) throw new Error(`more than ${limit} JSON comparisons`);
    return stringify(...args);
  }) as typeof JSON.stringify;
  try {
    return fn();
  } finally {
    JSON.stringify = stringify;
  }
}

test('strategic merge compares list elements a linear number of times ($setElementOrder, sets, keyed deletes)', () => {
  const n = 20_000;
  const names = Array.from({ length: n }, (_, i) => `example.com/f${i}`);
  const claim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', finalizers: ['example.com/f1'] }, spec: {} };
  const patch = { metadata: { '$setElementOrder/finalizers': [...names].reverse(), finalizers: names } };
  const out = withStringifyBudget(20 * n, () => applyStrategicMergePatch(claim as unknown as JsonObject, patch, { group: '', version: 'v1', kind: 'PersistentVolumeClaim' }));
  assert.equal((out.metadata as { finalizers: string[] }).finalizers.length, n);
  assert.equal((out.metadata as { finalizers: string[] }).finalizers[0], 'example.com/f19999');
  const owners = names.map((uid) => ({ uid, name: uid, kind: 'K', apiVersion: 'v1' }));
  const pv = { ...a1, metadata: { ...a1.metadata, ownerReferences: owners } };
  const deletes = names.slice(1).map((uid) => ({ uid, $patch: 'delete' }));
  const left = withStringifyBudget(20 * n, () =>
    applyStrategicMergePatch(pv as unknown as JsonObject, { metadata: { ownerReferences: [...deletes, { uid: names[0], name: 'renamed' }] } }, { group: '', version: 'v1', kind: 'PersistentVolume' }));
  assert.deepEqual((left.metadata as { ownerReferences: unknown[] }).ownerReferences, [{ uid: names[0], name: 'renamed', kind: 'K', apiVersion: 'v1' }]);
});

test('a patch body of the wrong JSON type is the 400 kube-apiserver gives when it cannot unmarshal it', () => {
  const cases: Array<[string, unknown, string]> = [
    [JSON_PATCH, { op: 'add' }, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    [JSON_PATCH, ['x'], 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp'],
    ['application/merge-patch+json', [1, 2], 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['application/merge-patch+json', null, 'Invalid JSON Patch'],
    [SMP, 5, 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
  ];
  for (const [type, body, message] of cases) {
    assert.deepEqual(statusOf(() => applyPatch(type, a1, body, PV)), { code: 400, reason: 'BadRequest', message }, `${type} ${JSON.stringify(body)}`);
  }
  assert.deepEqual(applyPatch(SMP, a1, null, PV), a1, 'a null strategic merge patch changes nothing');
});
