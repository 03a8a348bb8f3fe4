import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { csiNodeStrategy as csiNodes } from '@pv-controller/apiserver/resources/storage.k8s.io/csinodes.js';
import { assertCause, create, statusUpdate, update, withChanges } from './helpers.js';

const driver = { name: 'hostpath.csi.k8s.io', nodeID: 'node-a', topologyKeys: ['topology.hostpath.csi/node'], allocatable: { count: 10 } };
const valid: KubeObject = { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-a' }, spec: { drivers: [driver] } };

const withDrivers = (...drivers: Array<Record<string, unknown>>): KubeObject => ({ ...valid, spec: { drivers } });

test('a valid CSINode is accepted with an empty status', () => {
  const { obj, causes } = create(csiNodes, { ...valid, status: { storageHealth: [{ name: 'x' }] } });
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.status, {});
});

test('driver names of a CSINode are unique, valid CSI driver names', () => {
  const { causes } = create(csiNodes, withDrivers(driver, driver, { ...driver, name: 'Not_A_Driver' }, { ...driver, name: '' }));
  assertCause(causes, 'spec.drivers[1].name', 'FieldValueDuplicate', 'Duplicate value: "hostpath.csi.k8s.io"');
  assertCause(causes, 'spec.drivers[2].name', 'FieldValueInvalid', /^Invalid value: "Not_A_Driver": a lowercase RFC 1123 subdomain/);
  assertCause(causes, 'spec.drivers[3].name', 'FieldValueRequired', 'Required value');
  const long = create(csiNodes, withDrivers({ ...driver, name: `${'a'.repeat(64)}.io` })).causes;
  assertCause(long, 'spec.drivers[0].name', 'FieldValueTooLong', 'Too long: may not be more than 63 bytes');
});

test('a driver nodeID is required and at most 256 characters', () => {
  assertCause(create(csiNodes, withDrivers({ ...driver, nodeID: '' })).causes, 'spec.drivers[0].nodeID', 'FieldValueRequired', 'Required value');
  assert.deepEqual(create(csiNodes, withDrivers({ ...driver, nodeID: 'n'.repeat(256) })).causes, []);
  const long = create(csiNodes, withDrivers({ ...driver, nodeID: 'n'.repeat(257) })).causes;
  assertCause(long, 'spec.drivers[0].nodeID', 'FieldValueInvalid', `Invalid value: "${'n'.repeat(257)}": must be 256 characters or less`);
});

test('topology keys are unique qualified names, reported at the driver as upstream does', () => {
  const { causes } = create(csiNodes, withDrivers({ ...driver, topologyKeys: ['zone', 'zone', 'bad key'] }));
  assertCause(causes, 'spec.drivers[0]', 'FieldValueDuplicate', 'Duplicate value: "zone"');
  assertCause(causes, 'spec.drivers[0]', 'FieldValueInvalid', /^Invalid value: "bad key": name part must consist of alphanumeric characters/);
  const empty = create(csiNodes, withDrivers({ ...driver, topologyKeys: [''] })).causes;
  assertCause(empty, 'spec.drivers[0]', 'FieldValueRequired', 'Required value');
});

test('allocatable.count may be zero but not negative', () => {
  assert.deepEqual(create(csiNodes, withDrivers({ ...driver, allocatable: { count: 0 } })).causes, []);
  const { causes } = create(csiNodes, withDrivers({ ...driver, allocatable: { count: -1 } }));
  assertCause(causes, 'spec.drivers[0].allocatable.count', 'FieldValueInvalid', 'Invalid value: -1: must be greater than or equal to 0');
});

test('a registered driver keeps its nodeID and topology keys, may change allocatable, and drivers may come and go', () => {
  const stored = create(csiNodes, valid).obj;
  const changed = update(csiNodes, withDrivers({ ...driver, nodeID: 'node-b' }), stored).causes;
  assertCause(changed, 'spec.drivers', 'FieldValueInvalid',
    'Invalid value: {"Name":"hostpath.csi.k8s.io","NodeID":"node-b","TopologyKeys":["topology.hostpath.csi/node"],"Allocatable":null}: field is immutable');
  assert.deepEqual(update(csiNodes, withDrivers({ ...driver, allocatable: { count: 3 } }), stored).causes, []);
  assert.deepEqual(update(csiNodes, withDrivers({ ...driver, name: 'other.csi.k8s.io' }), stored).causes, []);
});

test('an update keeps the stored status and a status update keeps the spec, without storageHealth', () => {
  const stored = create(csiNodes, valid).obj;
  assert.deepEqual(update(csiNodes, withChanges(stored, { status: { storageHealth: [] } }), stored).obj.status, {});
  const { obj, causes } = statusUpdate(csiNodes, withChanges(stored, { spec: { drivers: [] }, status: { storageHealth: [{ name: 'a' }] } }), stored);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, stored.spec);
  assert.deepEqual(obj.status, {});
});

test('kubectl get csinodes prints NAME, DRIVERS (how many) and AGE', () => {
  const obj = create(csiNodes, valid).obj;
  assert.deepEqual(csiNodes.tableColumns.map((c) => c.name), ['Name', 'Drivers', 'Age']);
  assert.deepEqual(csiNodes.tableRow(obj, new Date('2024-05-01T10:01:00Z')), ['node-a', 1, '60s']);
});

test('empty drivers and topology keys are stored as null, as Go writes a nil list without omitempty', () => {
  assert.deepEqual(create(csiNodes, { ...valid, spec: { drivers: [] } }).obj.spec, { drivers: null });
  assert.deepEqual(create(csiNodes, { ...valid, spec: undefined }).obj.spec, { drivers: null });
  const { obj } = create(csiNodes, withDrivers({ ...driver, topologyKeys: [] }));
  assert.equal((obj.spec as { drivers: Array<{ topologyKeys: unknown }> }).drivers[0].topologyKeys, null);
});

test('a status update cannot change labels, annotations, finalizers or owners (ResetObjectMetaForStatus)', () => {
  const stored = create(csiNodes, withChanges(valid, { 'metadata.labels': { keep: 'yes' } })).obj;
  const next = withChanges(stored, { 'metadata.labels': { via: 'status' }, 'metadata.annotations': { a: 'b' }, 'metadata.finalizers': ['example.com/f'] });
  const { obj } = statusUpdate(csiNodes, next, stored);
  assert.deepEqual(obj.metadata.labels, { keep: 'yes' });
  assert.equal(obj.metadata.annotations, undefined);
  assert.equal(obj.metadata.finalizers, undefined);
});
