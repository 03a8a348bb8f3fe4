import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { FREE, LEAF, type ApplyType } from '@pv-controller/apiserver/registry/apply/apply-type.js';
import { applyConfiguration, recordUpdate, type OwnershipContext } from '@pv-controller/apiserver/registry/apply/field-manager.js';
import { decodeFieldsV1, encodeFieldsV1 } from '@pv-controller/apiserver/registry/apply/fields-v1.js';
import { FieldSet, pathString } from '@pv-controller/apiserver/registry/apply/fieldset.js';
import { decodeManagers, encodeManagers, type Managers } from '@pv-controller/apiserver/registry/apply/managed-fields.js';
import { mergeConfig } from '@pv-controller/apiserver/registry/apply/merge.js';
import { allFields, compareValues, configFieldSet } from '@pv-controller/apiserver/registry/apply/walk.js';
import { ApiError } from '@pv-controller/kube/errors.js';

/** A hand-written type: a struct with a set, a keyed list, a granular map and an atomic list. */
function struct(fields: Record<string, ApplyType>): ApplyType {
  return { shape: 'struct', goType: 'test.Thing', field: (n) => fields[n], open: false };
}
const item = struct({ name: LEAF, image: LEAF, port: LEAF });
const THING = struct({
  apiVersion: LEAF,
  kind: LEAF,
  metadata: struct({ name: LEAF, labels: { shape: 'map', values: LEAF }, finalizers: { shape: 'set' }, managedFields: LEAF }),
  spec: struct({
    modes: LEAF,
    items: { shape: 'listMap', keys: ['name'], items: item },
    extra: FREE,
    size: LEAF,
  }),
  status: struct({ phase: LEAF }),
});

function ctx(manager: string, now = '2026-01-01T00:00:00Z'): OwnershipContext {
  return { manager, apiVersion: 'v1', subresource: '', now, type: THING, resetFields: ['status'] };
}

function thing(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name: 't', ...metadata }, spec } as KubeObject;
}

const EMPTY = { metadata: {}, spec: {}, status: {} } as unknown as KubeObject;

function fieldsOf(managers: Managers): Record<string, unknown> {
  return Object.fromEntries([...managers.values()].map((e) => [`${e.manager}/${e.operation}`, encodeFieldsV1(e.fields)]));
}

test('FieldsV1 round-trips: "." marks a member that has children, {} a leaf', () => {
  const set = new FieldSet();
  set.insert(['f:metadata', 'f:labels']);
  set.insert(['f:metadata', 'f:labels', 'f:a']);
  set.insert(['f:spec', 'f:items', 'k:{"name":"x"}']);
  set.insert(['f:spec', 'f:items', 'k:{"name":"x"}', 'f:image']);
  const encoded = encodeFieldsV1(set);
  assert.deepEqual(encoded, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
    'f:spec': { 'f:items': { 'k:{"name":"x"}': { '.': {}, 'f:image': {} } } },
  });
  assert.ok(decodeFieldsV1(encoded).equals(set));
});

test('FieldsV1 with a malformed path element is refused whole', () => {
  for (const bad of [{ zz: {} }, { 'k:notjson': {} }, { 'k:"a"': {} }, { 'i:x': {} }, { 'f:a': 1 }]) {
    assert.throws(() => decodeFieldsV1(bad), Error, JSON.stringify(bad));
  }
});

test('conflict paths print as kube-apiserver prints them', () => {
  assert.equal(pathString(['f:spec', 'f:items', 'k:{"name":"x"}', 'f:image']), '.spec.items[name="x"].image');
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a/b"']), '.metadata.finalizers[="a/b"]');
});

test('an apply configuration owns its leaves and named list items, atomic lists whole', () => {
  const set = configFieldSet({ spec: { modes: ['a', 'b'], items: [{ name: 'x', image: 'i' }] }, metadata: { finalizers: ['f'] } }, THING);
  assert.deepEqual(encodeFieldsV1(set), {
    'f:metadata': { 'f:finalizers': { 'v:"f"': {} } },
    'f:spec': { 'f:items': { 'k:{"name":"x"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:modes': {} },
  });
});

test('a keyed list merges item by item, keeping live items the configuration does not name', () => {
  const live = { items: [{ name: 'a', image: '1' }, { name: 'b', image: '2', port: 80 }] };
  const merged = mergeConfig(live, { items: [{ name: 'b', image: '3' }, { name: 'c', image: '4' }] }, (THING as { field(n: string): ApplyType }).field('spec')!);
  assert.deepEqual(merged, { items: [{ name: 'a', image: '1' }, { name: 'b', image: '3', port: 80 }, { name: 'c', image: '4' }] });
});

test('an update takes the fields it changes from their previous owner; removed fields leave every owner', () => {
  const managers = decodeManagers(undefined);
  const created = thing({ size: 1, items: [{ name: 'a', image: '1' }] }, { labels: { l: 'x' } });
  recordUpdate(managers, EMPTY, created, ctx('creator'));
  const changed = thing({ size: 2, items: [{ name: 'a', image: '1' }] });
  recordUpdate(managers, created, changed, ctx('editor'));
  assert.deepEqual(fieldsOf(managers), {
    'creator/Update': { 'f:spec': { 'f:items': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
    'editor/Update': { 'f:spec': { 'f:size': {} } },
  });
});

test('apply refuses to change a field another manager owns (409 naming it), and takes it when forced', () => {
  const managers = decodeManagers(undefined);
  const live0 = thing({ size: 1 });
  recordUpdate(managers, EMPTY, live0, ctx('editor'));
  const live = { ...live0, metadata: { ...live0.metadata, managedFields: encodeManagers(managers) } } as KubeObject;
  const config = thing({ size: 2 });
  assert.throws(() => applyConfiguration(live, EMPTY, config, false, ctx('applier')), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 409);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "editor" using v1: .spec.size');
    return true;
  });
  const forced = applyConfiguration(live, EMPTY, config, true, ctx('applier'));
  assert.deepEqual(fieldsOf(forced.managers), { 'applier/Apply': { 'f:spec': { 'f:size': {} } } });
  assert.equal((forced.object.spec as { size: number }).size, 2);
});

test('applying the same value another manager set shares the field without a conflict', () => {
  const managers = decodeManagers(undefined);
  const live0 = thing({ size: 1 });
  recordUpdate(managers, EMPTY, live0, ctx('editor'));
  const live = { ...live0, metadata: { ...live0.metadata, managedFields: encodeManagers(managers) } } as KubeObject;
  const out = applyConfiguration(live, EMPTY, thing({ size: 1 }), false, ctx('applier'));
  assert.deepEqual(Object.keys(fieldsOf(out.managers)).sort(), ['applier/Apply', 'editor/Update']);
});

test('a field the applier stops setting is removed unless another manager owns it', () => {
  const first = applyConfiguration(EMPTY, EMPTY, thing({ size: 1, items: [{ name: 'a' }, { name: 'b' }] }, { labels: { x: '1', y: '2' } }), false, ctx('a'));
  const live = { ...first.object, metadata: { ...first.object.metadata, managedFields: encodeManagers(first.managers) } } as KubeObject;
  const second = applyConfiguration(live, EMPTY, thing({ items: [{ name: 'b' }] }, { labels: { y: '2' } }), false, ctx('a'));
  assert.deepEqual(second.object.spec, { items: [{ name: 'b' }] });
  assert.deepEqual(second.object.metadata.labels, { y: '2' });
});

/** Plain JSON values of THING's spec, small enough to shrink well. */
const specArb = fc.record(
  {
    size: fc.integer({ min: 0, max: 3 }),
    modes: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
    items: fc.uniqueArray(fc.record({ name: fc.constantFrom('x', 'y', 'z'), image: fc.constantFrom('1', '2') }, { requiredKeys: ['name'] }), {
      selector: (i) => i.name,
      maxLength: 3,
    }),
    extra: fc.dictionary(fc.constantFrom('p', 'q'), fc.oneof(fc.integer(), fc.constant({ deep: 1 })), { noNullPrototype: true }),
  },
  { requiredKeys: [] },
);
const labelsArb = fc.dictionary(fc.constantFrom('l1', 'l2', 'l3'), fc.constantFrom('v1', 'v2'), { noNullPrototype: true });

function stored(outcome: { object: KubeObject; managers: Managers }): KubeObject {
  return { ...outcome.object, metadata: { ...outcome.object.metadata, managedFields: encodeManagers(outcome.managers) } } as KubeObject;
}

test('property: applying the same configuration twice changes nothing the second time', () => {
  fc.assert(
    fc.property(specArb, labelsArb, specArb, (liveSpec, labels, configSpec) => {
      const live = thing(liveSpec);
      const config = thing(configSpec, { labels });
      const once = stored(applyConfiguration(live, EMPTY, config, true, ctx('a', '2026-01-01T00:00:00Z')));
      const twice = stored(applyConfiguration(once, EMPTY, config, true, ctx('a', '2026-01-02T00:00:00Z')));
      assert.deepEqual(JSON.parse(JSON.stringify(twice)), JSON.parse(JSON.stringify(once)));
    }),
  );
});

test('property: after updates by several managers, no field is owned twice by updaters and every owned field exists', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom('m1', 'm2', 'm3'), specArb, labelsArb), { minLength: 1, maxLength: 5 }), (writes) => {
      const managers = decodeManagers(undefined);
      let before: KubeObject = EMPTY;
      for (const [manager, spec, labels] of writes) {
        const after = thing(spec, { labels });
        recordUpdate(managers, before, after, ctx(manager));
        before = after;
      }
      const everything = new FieldSet();
      allFields(before, THING, everything);
      const seen = new FieldSet();
      for (const e of managers.values()) {
        assert.ok(e.fields.intersection(seen).isEmpty, 'two updaters own the same field');
        seen.unionWith(e.fields);
        for (const path of e.fields.paths()) assert.ok(everything.has(path), `owned field ${pathString(path)} is not in the object`);
      }
      // Every field a write set is owned by someone (metadata.name is the server's).
      const c = compareValues(EMPTY, before, THING);
      const owned = c.added.subtractRecursively(seen);
      for (const path of owned.paths()) assert.ok(['f:metadata', 'f:apiVersion', 'f:kind'].includes(path[0]), `unowned ${pathString(path)}`);
    }),
  );
});
