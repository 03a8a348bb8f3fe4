/** dryRun on every write verb: the answer looks real, nothing is stored. */
import type { Case } from './case.js';
import { MERGE, NODE, POD, PV, PVC, SC, create, defineCase, del, get, item, patch, post, put, tag, withQuery, a } from './fixtures.js';

const AREA = 'dryRun';
const DRY = 'dryRun=All';

const cases: Case[] = [
  ...[PV, PVC, SC, POD, NODE].map((k) =>
    defineCase(`${tag(k)}-dry-run-create`, AREA, `dry-run create of ${a(k)}`, post(withQuery(k.collection, DRY), k.sample('dry-{id}')), { resource: k.resource }),
  ),
  defineCase('pv-dry-run-create-then-get', AREA, 'a dry-run create stores nothing', get(item(PV, 'dry-{id}')), { resource: PV.resource, setup: [post(withQuery(PV.collection, DRY), PV.sample('dry-{id}'))] }),
  defineCase('pv-dry-run-update', AREA, 'dry-run update of a PersistentVolume', put(withQuery(item(PV, 'pv-{id}'), DRY), undefined, { edit: { of: 'obj', merge: PV.edit } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('pv-dry-run-update-then-get', AREA, 'a dry-run update changes nothing', get(item(PV, 'pv-{id}')), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}'), put(withQuery(item(PV, 'pv-{id}'), DRY), undefined, { edit: { of: 'obj', merge: PV.edit } })],
  }),
  defineCase('pvc-dry-run-patch', AREA, 'dry-run merge patch of a claim', patch(withQuery(item(PVC, 'claim'), DRY), MERGE, PVC.edit), { resource: PVC.resource, setup: [create(PVC, 'claim')] }),
  defineCase('pvc-dry-run-delete', AREA, 'dry-run delete of a claim', del(withQuery(item(PVC, 'claim'), DRY)), { resource: PVC.resource, setup: [create(PVC, 'claim')] }),
  defineCase('pvc-dry-run-delete-then-get', AREA, 'a dry-run delete keeps the claim', get(item(PVC, 'claim')), { resource: PVC.resource, setup: [create(PVC, 'claim'), del(withQuery(item(PVC, 'claim'), DRY))] }),
  defineCase('pv-dry-run-invalid-value', AREA, 'an unknown dryRun value', post(withQuery(PV.collection, 'dryRun=Maybe'), PV.sample('pv-{id}')), { resource: PV.resource }),
  defineCase('pv-dry-run-create-invalid', AREA, 'a dry-run create is still validated', post(withQuery(PV.collection, DRY), { ...PV.sample('pv-{id}'), spec: { accessModes: ['ReadWriteOnce'] } }), { resource: PV.resource }),
  defineCase('sc-dry-run-deletecollection', AREA, 'dry-run deletecollection keeps the objects', get(withQuery(SC.collection, 'labelSelector=case%3D{id}')), {
    resource: SC.resource,
    setup: [create(SC, 'sc-{id}'), del(withQuery(SC.collection, `labelSelector=case%3D{id}&${DRY}`))],
  }),
];

export const dryRunCases: Case[] = cases;
