import { test } from 'node:test';
import assert from 'node:assert/strict';
import { persistentVolumeStrategy, storageClassStrategy } from '@pv-controller/apiserver/resources/index.js';

function columnsOf(columns: unknown): Array<Record<string, unknown>> {
  return JSON.parse(JSON.stringify(columns)) as Array<Record<string, unknown>>;
}

test('Table columns carry the whole published field description, as kube-apiserver prints them', () => {
  const pv = columnsOf(persistentVolumeStrategy.tableColumns);
  const name = pv.find((c) => c.name === 'Name');
  assert.match(String(name?.description), /^Name must be unique within a namespace\. Is required when creating resources, .* Cannot be updated\. More info: https:\/\/kubernetes\.io\/docs\/concepts\/overview\/working-with-objects\/names#names$/);
  const capacity = pv.find((c) => c.name === 'Capacity');
  assert.equal(capacity?.description, "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity");
  assert.equal(pv.find((c) => c.name === 'StorageClass')?.description, 'StorageClass of the pv');
});

test('an enum field\'s column description is its Go doc, without openapi-gen\'s "Possible enum values" list', () => {
  const sc = columnsOf(storageClassStrategy.tableColumns);
  assert.equal(sc.find((c) => c.name === 'ReclaimPolicy')?.description, 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.');
});

test('a column serializes its keys in kube-apiserver\'s order', () => {
  for (const c of columnsOf(persistentVolumeStrategy.tableColumns)) assert.deepEqual(Object.keys(c), ['name', 'type', 'format', 'description', 'priority']);
});
