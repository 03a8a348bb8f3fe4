import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '@pv-controller/apiserver/registry/registry.js';
import { openStorage } from '@pv-controller/apiserver/storage/index.js';
import type { Change } from '@pv-controller/apiserver/storage/storage.js';
import { parseSelection } from '@pv-controller/apiserver/registry/selection.js';
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { fakeStrategies, gadgets, namespaces, widgets } from './fake-strategies.js';
import { create, patch, update } from './request-writes.js';

async function setup(): Promise<{ reg: Registry; changes: Change[] }> {
  const storage = await openStorage({ kind: 'memory' });
  const reg = new Registry({ storage, strategies: fakeStrategies, now: () => new Date('2026-03-04T05:06:07.890Z') });
  const changes: Change[] = [];
  storage.subscribe((c) => changes.push(c));
  return { reg, changes };
}

function widget(name: string, size = 1, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size }, ...extra };
}

async function rejects(p: Promise<unknown> | (() => unknown), code: number, reason: string): Promise<ApiError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.reason, reason);
    return err;
  }
  assert.fail(`expected ${code} ${reason}`);
}

test('create fills uid, RFC 3339 seconds timestamp, generation 1, a resourceVersion, and resets status', async () => {
  const { reg } = await setup();
  const body = widget('w1', 3, { status: { phase: 'Done' } });
  body.metadata.uid = 'client-chosen';
  const { object } = await create(reg, widgets, '', body);
  assert.match(object.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
  assert.notEqual(object.metadata.uid, 'client-chosen');
  assert.equal(object.metadata.creationTimestamp, '2026-03-04T05:06:07Z');
  assert.equal(object.metadata.generation, 1);
  assert.match(object.metadata.resourceVersion ?? '', /^\d+$/);
  assert.deepEqual(object.status, { phase: 'Pending' });
  assert.deepEqual(object.spec, { size: 3, color: 'grey' }, 'defaults applied');
});

test('generateName makes a unique name from the prefix plus five characters', async () => {
  const { reg } = await setup();
  const a = await create(reg, widgets, '', { metadata: { generateName: 'w-' }, spec: { size: 1 } });
  const b = await create(reg, widgets, '', { metadata: { generateName: 'w-' }, spec: { size: 1 } });
  assert.match(a.object.metadata.name ?? '', /^w-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.notEqual(a.object.metadata.name, b.object.metadata.name);
});

test('a create the strategy rejects is a 422 carrying its causes and the qualified kind', async () => {
  const { reg } = await setup();
  const err = await rejects(create(reg, widgets, '', { metadata: { name: 'bad' }, spec: {} }), 422, 'Invalid');
  const status = err.toStatus();
  assert.equal(status.message, 'Widget.example.com "bad" is invalid: spec.size: Required value');
  assert.deepEqual(status.details, {
    name: 'bad',
    group: 'example.com',
    kind: 'Widget',
    causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' }],
  });
});

test('an update or patch whose resourceVersion is no number is the reason-less 500 storage answers, not a 409', async () => {
  const { reg } = await setup();
  const { object } = await create(reg, widgets, '', widget('w1'));
  const err = await rejects(update(reg, widgets, '', 'w1', { ...object, metadata: { ...object.metadata, resourceVersion: 'abc' } }), 500, '');
  assert.equal(err.message, 'strconv.ParseUint: parsing "abc": invalid syntax');
  await rejects(patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { metadata: { resourceVersion: '-1' } }), 500, '');
});

test('a second create of one name is 409 AlreadyExists; a name is required', async () => {
  const { reg } = await setup();
  await create(reg, widgets, '', widget('w1'));
  const err = await rejects(create(reg, widgets, '', widget('w1')), 409, 'AlreadyExists');
  assert.equal(err.message, 'widgets.example.com "w1" already exists');
  await rejects(create(reg, widgets, '', { metadata: {}, spec: { size: 1 } }), 422, 'Invalid');
});

test('a namespaced create needs its namespace to exist', async () => {
  const { reg } = await setup();
  const err = await rejects(create(reg, gadgets, 'nowhere', { metadata: { name: 'g' }, spec: { size: 1 } }), 404, 'NotFound');
  assert.equal(err.message, 'namespaces "nowhere" not found');
  await create(reg, namespaces, '', { metadata: { name: 'here' } });
  const { object } = await create(reg, gadgets, 'here', { metadata: { name: 'g' }, spec: { size: 1 } });
  assert.equal(object.metadata.namespace, 'here');
  await rejects(create(reg, gadgets, 'here', { metadata: { name: 'g2', namespace: 'other' }, spec: { size: 1 } }), 400, 'BadRequest');
});

test('dryRun create validates but stores nothing', async () => {
  const { reg } = await setup();
  const { object } = await create(reg, widgets, '', widget('w1'), { dryRun: true });
  assert.equal(object.metadata.name, 'w1');
  await rejects(() => reg.get(widgets, '', 'w1'), 404, 'NotFound');
});

test('an update with a stale resourceVersion is a 409 Conflict; without one it is unconditional', async () => {
  const { reg } = await setup();
  const { object: v1 } = await create(reg, widgets, '', widget('w1'));
  const { object: v2 } = await update(reg, widgets, '', 'w1', { ...v1, spec: { size: 2 } });
  const err = await rejects(update(reg, widgets, '', 'w1', { ...v1, spec: { size: 5 } }), 409, 'Conflict');
  assert.equal(
    err.message,
    'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again',
  );
  const { object: v3 } = await update(reg, widgets, '', 'w1', { metadata: { name: 'w1' }, spec: { size: 7 } });
  assert.ok(Number(v3.metadata.resourceVersion) > Number(v2.metadata.resourceVersion));
  assert.equal((v3.spec as { size: number }).size, 7);
  assert.equal(v3.metadata.uid, v1.metadata.uid, 'identity carried over');
});

test('a no-op update keeps the resourceVersion and emits no change', async () => {
  const { reg, changes } = await setup();
  const { object: v1 } = await create(reg, widgets, '', widget('w1', 2, { metadata: { name: 'w1', labels: {} } }));
  await Promise.resolve();
  const before = changes.length;
  const { object: same } = await update(reg, widgets, '', 'w1', structuredClone(v1));
  assert.equal(same.metadata.resourceVersion, v1.metadata.resourceVersion);
  const { object: again } = await patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { spec: { size: 2 } });
  assert.equal(again.metadata.resourceVersion, v1.metadata.resourceVersion);
  await new Promise((r) => setImmediate(r));
  assert.equal(changes.length, before);
});

test('the main resource ignores status and the status subresource ignores spec', async () => {
  const { reg } = await setup();
  const { object: v1 } = await create(reg, widgets, '', widget('w1', 1));
  const { object: v2 } = await update(reg, widgets, '', 'w1', { ...v1, spec: { size: 2 }, status: { phase: 'Hacked' } });
  assert.deepEqual(v2.status, { phase: 'Pending' });
  assert.equal((v2.spec as { size: number }).size, 2);
  const { object: v3 } = await update(reg, widgets, '', 'w1', { ...v2, spec: { size: 99 }, status: { phase: 'Ready' } }, { subresource: 'status' });
  assert.deepEqual(v3.status, { phase: 'Ready' });
  assert.equal((v3.spec as { size: number }).size, 2);
  assert.equal(v3.metadata.generation, v2.metadata.generation, 'status writes never bump generation');
});

test('without generation tracking, generation is what the client sent, kept on update and bumped once deletion starts', async () => {
  const { reg } = await setup();
  await create(reg, namespaces, '', { metadata: { name: 'default' } });
  const body = { apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'g1', finalizers: ['example.com/hold'] }, spec: { size: 1 } };
  const { object: plain } = await create(reg, gadgets, 'default', { ...body, metadata: { name: 'g0' } });
  assert.equal(plain.metadata.generation, undefined);
  const { object: created } = await create(reg, gadgets, 'default', { ...body, metadata: { ...body.metadata, generation: 5 } });
  assert.equal(created.metadata.generation, 5);
  const { object: patched } = await patch(reg, gadgets, 'default', 'g1', 'application/merge-patch+json', { spec: { size: 2 } });
  assert.equal(patched.metadata.generation, 5);
  const deleting = await reg.delete(gadgets, 'default', 'g1', {});
  assert.equal(deleting.metadata.generation, 6);
});

test('generation bumps on a spec change but not on a label change', async () => {
  const { reg } = await setup();
  const { object: v1 } = await create(reg, widgets, '', widget('w1', 1));
  const { object: v2 } = await patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { metadata: { labels: { a: 'b' } } });
  assert.equal(v2.metadata.generation, 1);
  assert.notEqual(v2.metadata.resourceVersion, v1.metadata.resourceVersion);
  const { object: v3 } = await patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { spec: { size: 4 } });
  assert.equal(v3.metadata.generation, 2);
});

test('update validation failures are 422 with the strategy causes', async () => {
  const { reg } = await setup();
  await create(reg, widgets, '', widget('w1', 1));
  const err = await rejects(patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { spec: { size: -1 } }), 422, 'Invalid');
  assert.equal(err.toStatus().details?.causes?.[0].field, 'spec.size');
});

test('a PATCH to a missing object is 404 and a patch carrying a stale resourceVersion conflicts', async () => {
  const { reg } = await setup();
  await rejects(patch(reg, widgets, '', 'nope', 'application/merge-patch+json', { spec: { size: 1 } }), 404, 'NotFound');
  const { object: v1 } = await create(reg, widgets, '', widget('w1', 1));
  await patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { spec: { size: 2 } });
  const stale = { metadata: { resourceVersion: v1.metadata.resourceVersion }, spec: { size: 3 } };
  await rejects(patch(reg, widgets, '', 'w1', 'application/merge-patch+json', stale), 409, 'Conflict');
});

test('deleting an object with finalizers marks it; removing the last finalizer deletes it', async () => {
  const { reg, changes } = await setup();
  const { object: v1 } = await create(reg, widgets, '', widget('w1', 1, { metadata: { name: 'w1', finalizers: ['example.com/hold'] } }));
  const marked = await reg.delete(widgets, '', 'w1', {});
  assert.equal(marked.metadata.deletionTimestamp, '2026-03-04T05:06:07Z');
  assert.equal(marked.metadata.deletionGracePeriodSeconds, 0);
  assert.ok(Number(marked.metadata.resourceVersion) > Number(v1.metadata.resourceVersion));
  const again = await reg.delete(widgets, '', 'w1', {});
  assert.equal(again.metadata.resourceVersion, marked.metadata.resourceVersion, 'a second delete changes nothing');
  const err = await rejects(
    patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { metadata: { finalizers: ['example.com/hold', 'example.com/new'] } }),
    422,
    'Invalid',
  );
  assert.match(err.message, /no new finalizers can be added if the object is being deleted/);
  await patch(reg, widgets, '', 'w1', 'application/merge-patch+json', { metadata: { finalizers: null } });
  await rejects(() => reg.get(widgets, '', 'w1'), 404, 'NotFound');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(changes.map((c) => c.type), ['ADDED', 'MODIFIED', 'DELETED']);
});

test('delete preconditions on uid and resourceVersion are 409 Conflict when they do not hold', async () => {
  const { reg } = await setup();
  const { object } = await create(reg, widgets, '', widget('w1'));
  const err = await rejects(reg.delete(widgets, '', 'w1', { preconditions: { uid: 'other' } }), 409, 'Conflict');
  assert.match(err.message, /^Operation cannot be fulfilled on Widget\.example\.com "w1": the UID in the precondition \(other\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/);
  assert.equal(err.toStatus().details?.kind, 'Widget', 'the storage layer names the Kind, not the resource');
  await rejects(reg.delete(widgets, '', 'w1', { preconditions: { resourceVersion: '1' + object.metadata.resourceVersion } }), 409, 'Conflict');
  const gone = await reg.delete(widgets, '', 'w1', { preconditions: { uid: object.metadata.uid } });
  assert.equal(gone.metadata.name, 'w1');
  await rejects(reg.delete(widgets, '', 'w1', {}), 404, 'NotFound');
});

test('list filters by label and field selectors and rejects unsupported field labels', async () => {
  const { reg } = await setup();
  await create(reg, widgets, '', widget('a', 1, { metadata: { name: 'a', labels: { tier: 'gold' } } }));
  await create(reg, widgets, '', { metadata: { name: 'b' }, spec: { size: 1, color: 'red' } });
  await create(reg, widgets, '', widget('c'));
  const sel = (q: string) => parseSelection(new URLSearchParams(q), widgets, undefined);
  const names = (q: string) => reg.list(widgets, sel(q), {}).items.map((o) => o.metadata.name);
  assert.deepEqual(names('labelSelector=tier%3Dgold'), ['a']);
  assert.deepEqual(names('fieldSelector=spec.color%3Dred'), ['b']);
  assert.deepEqual(names('fieldSelector=metadata.name!%3Db'), ['a', 'c']);
  assert.throws(() => sel('fieldSelector=spec.size%3D1'), /field label not supported: spec.size/);
});

test('limit and continue page through a list at one resourceVersion', async () => {
  const { reg } = await setup();
  for (const n of ['a', 'b', 'c', 'd', 'e']) await create(reg, widgets, '', widget(n));
  const all = parseSelection(new URLSearchParams(), widgets, undefined);
  const seen: string[] = [];
  let page = reg.list(widgets, all, { limit: 2 });
  const rv = page.metadata.resourceVersion;
  assert.equal(page.metadata.remainingItemCount, 3);
  await create(reg, widgets, '', widget('f'));
  for (;;) {
    seen.push(...page.items.map((o) => o.metadata.name ?? ''));
    assert.equal(page.metadata.resourceVersion, rv);
    if (!page.metadata.continue) break;
    page = reg.list(widgets, all, { limit: 2, continueToken: page.metadata.continue });
  }
  assert.deepEqual(seen.slice(0, 5), ['a', 'b', 'c', 'd', 'e']);
});

test('a list at an exact resourceVersion that is not the latest is 410 Expired', async () => {
  const { reg } = await setup();
  const { object } = await create(reg, widgets, '', widget('a'));
  await create(reg, widgets, '', widget('b'));
  const all = parseSelection(new URLSearchParams(), widgets, undefined);
  await rejects(() => reg.list(widgets, all, { resourceVersion: object.metadata.resourceVersion, resourceVersionMatch: 'Exact' }), 410, 'Expired');
  assert.equal(reg.list(widgets, all, { resourceVersion: '0' }).items.length, 2);
});

test('deleting a namespace deletes what is in it', async () => {
  const { reg } = await setup();
  await create(reg, namespaces, '', { metadata: { name: 'team' } });
  await create(reg, gadgets, 'team', { metadata: { name: 'g1' }, spec: { size: 1 } });
  await create(reg, gadgets, 'team', { metadata: { name: 'g2', finalizers: ['example.com/hold'] }, spec: { size: 1 } });
  await reg.delete(namespaces, '', 'team', {});
  await rejects(() => reg.get(gadgets, 'team', 'g1'), 404, 'NotFound');
  assert.ok(reg.get(gadgets, 'team', 'g2').metadata.deletionTimestamp, 'a finalizer still holds its object');
});

test('unknown metadata fields are rejected under Strict and dropped otherwise', async () => {
  const { reg } = await setup();
  await rejects(create(reg, widgets, '', { metadata: { name: 'w', bogus: 1 }, spec: { size: 1 } }, { fieldValidation: 'Strict' }), 400, 'BadRequest');
  const { object, warnings } = await create(reg, widgets, '', { metadata: { name: 'w', bogus: 1 }, spec: { size: 1 } });
  assert.deepEqual(warnings, ['unknown field "metadata.bogus"']);
  assert.equal(object.metadata.bogus, undefined);
});
