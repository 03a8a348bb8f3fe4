/** Merge, JSON and strategic merge patches of every resource, and the patch edge cases. */
import type { Case } from './case.js';
import { ALL_KINDS, APPLY, JSON_PATCH, MERGE, NODE, POD, PV, PVC, STRATEGIC, create, defineCase, item, patch, tag, withQuery, a } from './fixtures.js';

const AREA = 'patch';

function perKind(): Case[] {
  return ALL_KINDS.flatMap((k) => {
    const t = tag(k);
    const name = `${t}-{id}`;
    const setup = [create(k, name)];
    const path = item(k, name);
    return [
      defineCase(`${t}-merge-patch`, AREA, `merge patch of ${a(k)}`, patch(path, MERGE, k.edit), { resource: k.resource, setup }),
      defineCase(`${t}-json-patch`, AREA, `JSON patch of ${a(k)}`, patch(path, JSON_PATCH, k.jsonEdit), { resource: k.resource, setup }),
      defineCase(`${t}-strategic-patch`, AREA, `strategic merge patch of ${a(k)}`, patch(path, STRATEGIC, k.edit), { resource: k.resource, setup }),
    ];
  });
}

const pvSetup = [create(PV, 'pv-{id}')];
const podSetup = [create(POD, 'pod-{id}')];

const extras: Case[] = [
  defineCase('pod-strategic-containers-by-name', AREA, 'a strategic patch merges containers by name', patch(item(POD, 'pod-{id}'), STRATEGIC, { spec: { containers: [{ name: 'app', image: 'registry.example/app:2' }] } }), {
    resource: POD.resource,
    setup: podSetup,
  }),
  defineCase('pod-merge-replaces-containers', AREA, 'a merge patch replaces the containers list', patch(item(POD, 'pod-{id}'), MERGE, { spec: { containers: [{ name: 'app', image: 'registry.example/app:2' }] } }), {
    resource: POD.resource,
    setup: podSetup,
  }),
  defineCase('pv-strategic-delete-directive', AREA, 'a strategic $patch: delete on a map removes it', patch(item(PV, 'pv-{id}'), STRATEGIC, { spec: { claimRef: { $patch: 'delete' } } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}'), patch(item(PV, 'pv-{id}'), MERGE, { spec: { claimRef: { namespace: 'default', name: 'claim' } } })],
  }),
  defineCase('node-strategic-taints', AREA, 'a strategic patch merges taints by key', patch(item(NODE, 'node-{id}'), STRATEGIC, { spec: { taints: [{ key: 'b', effect: 'NoSchedule' }] } }), {
    resource: NODE.resource,
    setup: [create(NODE, 'node-{id}'), patch(item(NODE, 'node-{id}'), MERGE, { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } })],
  }),
  defineCase('pv-json-patch-test-fails', AREA, 'a JSON patch whose test op fails', patch(item(PV, 'pv-{id}'), JSON_PATCH, [{ op: 'test', path: '/spec/storageClassName', value: 'other' }]), {
    resource: PV.resource,
    setup: pvSetup,
  }),
  defineCase('pv-json-patch-missing-path', AREA, 'a JSON patch removing a path that is not there', patch(item(PV, 'pv-{id}'), JSON_PATCH, [{ op: 'remove', path: '/spec/nfs' }]), {
    resource: PV.resource,
    setup: pvSetup,
  }),
  defineCase('pv-json-patch-not-a-list', AREA, 'a JSON patch that is not a list', patch(item(PV, 'pv-{id}'), JSON_PATCH, { op: 'add' }), { resource: PV.resource, setup: pvSetup }),
  defineCase('pv-merge-patch-bad-json', AREA, 'a merge patch that is not JSON', patch(item(PV, 'pv-{id}'), MERGE, '{"spec":'), { resource: PV.resource, setup: pvSetup }),
  defineCase('pv-patch-plain-json', AREA, 'a patch sent as application/json', patch(item(PV, 'pv-{id}'), 'application/json', { spec: {} }), { resource: PV.resource, setup: pvSetup }),
  defineCase('pv-patch-missing', AREA, 'a patch of a PersistentVolume that does not exist', patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { a: 'b' } } }), { resource: PV.resource }),
  defineCase('pv-merge-patch-invalid', AREA, 'a merge patch that makes the object invalid', patch(item(PV, 'pv-{id}'), MERGE, { spec: { capacity: null } }), { resource: PV.resource, setup: pvSetup }),
  defineCase('pv-merge-patch-stale-rv', AREA, 'a merge patch carrying an old resourceVersion', patch(item(PV, 'pv-{id}'), MERGE, { metadata: { resourceVersion: '{$rv}', labels: { a: 'b' } } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}'), patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { first: 'x' } } })],
  }),
  defineCase('pvc-apply-create', AREA, 'server-side apply creates a claim', patch(withQuery(item(PVC, 'claim'), 'fieldManager=fidelity'), APPLY, PVC.sample('claim')), { resource: PVC.resource }),
  defineCase('pv-apply-update', AREA, 'server-side apply changes a PersistentVolume', patch(withQuery(item(PV, 'pv-{id}'), 'fieldManager=fidelity&force=true'), APPLY, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-{id}' }, spec: { persistentVolumeReclaimPolicy: 'Delete' } }), {
    resource: PV.resource,
    setup: pvSetup,
  }),
];

export const patchCases: Case[] = [...perKind(), ...extras];
