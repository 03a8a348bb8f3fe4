import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject, Namespace } from '@pv-controller/kube/types.js';
import { coreEventStrategy as coreEvents } from '@pv-controller/apiserver/resources/core/events.js';
import { eventsV1Strategy as eventsV1 } from '@pv-controller/apiserver/resources/events.k8s.io/events-v1.js';
import { leaseStrategy as leases } from '@pv-controller/apiserver/resources/coordination.k8s.io/leases.js';
import { namespaceStrategy as namespaces } from '@pv-controller/apiserver/resources/core/namespaces.js';
import { nodeStrategy as nodes } from '@pv-controller/apiserver/resources/core/nodes.js';
import { podStrategy as pods } from '@pv-controller/apiserver/resources/core/pods.js';
import { assertCause, create, EVENT_V1, statusUpdate, update, withChanges } from './helpers.js';

const now = new Date('2024-05-01T10:00:30Z');

test('a namespace is Active, labelled with its name, carries the kubernetes finalizer, and status.phase is selectable', () => {
  const { obj, causes } = create(namespaces, { metadata: { name: 'team-a' }, status: { phase: 'Terminating' } });
  assert.deepEqual(causes, []);
  const ns = obj as Namespace;
  assert.equal(ns.status?.phase, 'Active');
  assert.equal(ns.metadata.labels?.['kubernetes.io/metadata.name'], 'team-a');
  assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
  assert.equal(namespaces.fields(obj)['status.phase'], 'Active');
  assert.deepEqual(namespaces.tableRow(obj, now), ['team-a', 'Active', '30s']);
  assertCause(create(namespaces, { metadata: { name: 'a.b' } }).causes, 'metadata.name', 'FieldValueInvalid');
  assertCause(create(namespaces, { metadata: { name: 'x' }, spec: { finalizers: ['custom'] } }).causes, 'spec.finalizers', 'FieldValueInvalid',
    'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified');
  const upd = update(namespaces, withChanges(obj, { 'spec.finalizers': [], 'status.phase': 'Gone' }), obj);
  assert.deepEqual((upd.obj as Namespace).spec?.finalizers, ['kubernetes']);
  assert.equal((upd.obj as Namespace).status?.phase, 'Active');
});

const coreEvent: KubeObject = {
  metadata: { name: 'claim1.17c3', namespace: 'ns' },
  involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'claim1', uid: 'u1' },
  reason: 'ProvisioningSucceeded',
  message: ' Successfully provisioned volume pv-1 ',
  source: { component: 'persistentvolume-controller' },
  firstTimestamp: '2024-05-01T09:58:00Z',
  lastTimestamp: '2024-05-01T10:00:00Z',
  count: 3,
  type: 'Normal',
};

test('core events: namespace agreement, selectable involvedObject fields, kubectl get events row', () => {
  assert.deepEqual(create(coreEvents, coreEvent).causes, []);
  const pvEvent = withChanges(coreEvent, { 'metadata.namespace': 'default', 'involvedObject.namespace': undefined, 'involvedObject.kind': 'PersistentVolume' });
  assert.deepEqual(create(coreEvents, pvEvent).causes, []);
  assertCause(create(coreEvents, withChanges(coreEvent, { 'involvedObject.namespace': 'other' })).causes, 'involvedObject.namespace',
    'FieldValueInvalid', 'Invalid value: "other": does not match event.namespace');
  const withEventTime = withChanges(coreEvent, { eventTime: '2024-05-01T10:00:00.000000Z' });
  assertCause(create(coreEvents, withEventTime).causes, 'reportingComponent', 'FieldValueRequired');
  assertCause(create(coreEvents, withEventTime).causes, 'action', 'FieldValueRequired');
  assert.throws(() => create(coreEvents, withChanges(coreEvent, { eventTime: '2024-05-01T10:00:00Z' })), BadRequestError);
  const fields = coreEvents.fields(coreEvent);
  assert.equal(fields['involvedObject.name'], 'claim1');
  assert.equal(fields['involvedObject.uid'], 'u1');
  assert.equal(fields.source, 'persistentvolume-controller');
  assert.equal(fields.type, 'Normal');
  assert.deepEqual(coreEvents.tableRow(coreEvent, now), ['30s', 'Normal', 'ProvisioningSucceeded', 'persistentvolumeclaim/claim1', '',
    'persistentvolume-controller', 'Successfully provisioned volume pv-1', '2m30s', 3, 'claim1.17c3']);
});

test('events.k8s.io/v1 events need eventTime, a valid type and the reporting fields', () => {
  const ev = EVENT_V1;
  assert.deepEqual(create(eventsV1, ev).causes, []);
  assertCause(create(eventsV1, withChanges(ev, { eventTime: undefined })).causes, 'eventTime', 'FieldValueRequired');
  assertCause(create(eventsV1, withChanges(ev, { type: 'Info' })).causes, 'type', 'FieldValueInvalid');
  assertCause(create(eventsV1, withChanges(ev, { reportingController: undefined })).causes, 'reportingController', 'FieldValueRequired');
  assertCause(create(eventsV1, withChanges(ev, { deprecatedCount: 3 })).causes, 'deprecatedCount', 'FieldValueInvalid');
  assert.equal(eventsV1.fields(ev)['regarding.name'], 'c1');
  assert.equal(eventsV1.tableRow(ev, now)[3], 'persistentvolumeclaim/c1');
});

test('leases accept six-digit MicroTimes only and positive durations', () => {
  const lease: KubeObject = { metadata: { name: 'pv-controller', namespace: 'kube-system' }, spec: {
    holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:05.123456+02:00',
  } };
  assert.deepEqual(create(leases, lease).causes, []);
  for (const bad of ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00.1234567Z', 'yesterday']) {
    assert.throws(() => create(leases, withChanges(lease, { 'spec.renewTime': bad })), BadRequestError, bad);
  }
  assertCause(create(leases, withChanges(lease, { 'spec.leaseDurationSeconds': 0 })).causes, 'spec.leaseDurationSeconds', 'FieldValueInvalid',
    'Invalid value: 0: must be greater than 0');
  assert.deepEqual(leases.tableRow(create(leases, lease).obj, new Date('2024-05-01T10:00:00Z')), ['pv-controller', 'me', '0s']);
});

test('pods: Pending on create, status kept on update, nodeName and phase selectable, ready/status columns', () => {
  const pod: KubeObject = { metadata: { name: 'p1', namespace: 'ns' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c1' } }] } };
  const { obj, causes } = create(pods, pod);
  assert.deepEqual(causes, []);
  assert.equal(pods.fields(obj)['spec.nodeName'], 'n1');
  assert.equal(pods.fields(obj)['status.phase'], 'Pending');
  assertCause(create(pods, withChanges(pod, { 'spec.volumes': [{ name: 'x', persistentVolumeClaim: {} }] })).causes,
    'spec.volumes[0].persistentVolumeClaim.claimName', 'FieldValueRequired');
  assertCause(create(pods, withChanges(pod, { 'spec.volumes': [{ name: 'x' }, { name: 'x' }] })).causes, 'spec.volumes[1].name', 'FieldValueDuplicate');
  const running = statusUpdate(pods, withChanges(obj, { status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [
    { ready: true, restartCount: 1, state: { running: {} } }, { ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } },
  ] } }), obj).obj;
  assert.deepEqual(pods.tableRow(running, now), ['p1', '1/2', 'CrashLoopBackOff', '3', '30s', '10.0.0.5', 'n1', '<none>', '<none>']);
  assert.equal((update(pods, withChanges(running, { 'status.phase': 'Failed' }), running).obj.status as { phase: string }).phase, 'Running');
});

test('nodes: name syntax, spec.unschedulable selectable, status/roles columns', () => {
  const node: KubeObject = { metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } }, spec: { unschedulable: true },
    status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      nodeInfo: { kubeletVersion: 'v1.30.0' } } };
  const { obj, causes } = create(nodes, node);
  assert.deepEqual(causes, []);
  assert.equal(nodes.fields(obj)['spec.unschedulable'], 'true');
  assert.deepEqual(nodes.tableRow(obj, now).slice(0, 6), ['n1', 'Ready,SchedulingDisabled', 'control-plane', '30s', 'v1.30.0', '10.0.0.1']);
  assertCause(create(nodes, { metadata: { name: 'N_1' } }).causes, 'metadata.name', 'FieldValueInvalid');
});
