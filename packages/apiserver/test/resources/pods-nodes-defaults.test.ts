import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { podStrategy as pods } from '@pv-controller/apiserver/resources/core/pods.js';
import { nodeStrategy as nodes } from '@pv-controller/apiserver/resources/core/nodes.js';
import { coreEventStrategy as coreEvents } from '@pv-controller/apiserver/resources/core/events.js';
import { eventsV1Strategy as eventsV1 } from '@pv-controller/apiserver/resources/events.k8s.io/events-v1.js';
import { persistentVolumeClaimStrategy as pvcs } from '@pv-controller/apiserver/resources/core/persistentvolumeclaims.js';
import { apiResourceList } from '@pv-controller/apiserver/endpoints/discovery.js';
import { assertCause, create, EVENT_V1, statusUpdate, update, withChanges } from './helpers.js';

type Json = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-side JSON
const spec = (o: KubeObject): any => o.spec;

const pod = (containers: Json[], extra: Json = {}): KubeObject =>
  ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers, ...extra } });

test('a created Pod gets the core/v1 defaults, priority 0, the default NoExecute tolerations and its QoS class', () => {
  const { obj, causes } = create(pods, pod([{ name: 'app', image: 'busybox' }]));
  assert.deepEqual(causes, []);
  assert.deepEqual(spec(obj).containers, [{ name: 'app', image: 'busybox', imagePullPolicy: 'Always', resources: {},
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }]);
  const { containers: _c, ...rest } = spec(obj);
  assert.deepEqual(rest, {
    dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler',
    enableServiceLinks: true, securityContext: {}, priority: 0, preemptionPolicy: 'PreemptLowerPriority',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
  });
  assert.deepEqual(obj.status, { phase: 'Pending', qosClass: 'BestEffort' });
});

test('pull policy follows the image tag, requests default to limits, and QoS is Guaranteed only with cpu and memory limits equal to requests', () => {
  const tagged = create(pods, pod([{ name: 'a', image: 'reg.example:5000/app:1.0', resources: { limits: { cpu: '1', memory: '1Gi' } } }])).obj;
  assert.equal(spec(tagged).containers[0].imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(spec(tagged).containers[0].resources.requests, { cpu: '1', memory: '1Gi' });
  assert.equal((tagged.status as Json).qosClass, 'Guaranteed');
  const cpuOnly = create(pods, pod([{ name: 'a', image: 'app:latest', resources: { limits: { cpu: '1' } } }])).obj;
  assert.equal(spec(cpuOnly).containers[0].imagePullPolicy, 'Always');
  assert.equal((cpuOnly.status as Json).qosClass, 'Burstable');
});

test('a Pod toleration of every NoExecute taint keeps the defaults out; an unknown PriorityClass is forbidden', () => {
  const tolerant = create(pods, pod([{ name: 'a', image: 'x:1' }], { tolerations: [{ operator: 'Exists' }] })).obj;
  assert.deepEqual(spec(tolerant).tolerations, [{ operator: 'Exists' }]);
  assert.throws(() => create(pods, pod([{ name: 'a', image: 'x:1' }], { priorityClassName: 'gold' })),
    { code: 403, message: 'pods "p" is forbidden: no PriorityClass with name gold was found' });
  assert.equal(spec(create(pods, pod([{ name: 'a', image: 'x:1' }], { priorityClassName: 'system-node-critical' })).obj).priority, 2000001000);
});

test('Pod validation: containers required, container names and images, restart policy', () => {
  assertCause(create(pods, pod([])).causes, 'spec.containers', 'FieldValueRequired');
  const bad = create(pods, pod([{ name: 'App' }], { restartPolicy: 'Sometimes' })).causes;
  assertCause(bad, 'spec.containers[0].name', 'FieldValueInvalid');
  assertCause(bad, 'spec.containers[0].image', 'FieldValueRequired');
  assertCause(bad, 'spec.restartPolicy', 'FieldValueNotSupported',
    'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"');
});

test('a Pod update may change images, add tolerations and labels, but nothing else of the spec', () => {
  const stored = create(pods, pod([{ name: 'a', image: 'x:1' }])).obj;
  const image = update(pods, withChanges(stored, { 'spec.containers': [{ ...spec(stored).containers[0], image: 'x:2' }] }), stored);
  assert.deepEqual(image.causes, []);
  assert.deepEqual(update(pods, withChanges(stored, { 'metadata.labels': { a: 'b' } }), stored).causes, []);
  assertCause(update(pods, withChanges(stored, { 'spec.restartPolicy': 'Never' }), stored).causes, 'spec', 'FieldValueForbidden',
    /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
  assertCause(update(pods, withChanges(stored, { 'spec.containers': [] }), stored).causes, 'spec.containers', 'FieldValueForbidden',
    'Forbidden: pod updates may not add or remove containers');
});

test('a created Node gets the not-ready NoSchedule taint, an empty daemon endpoint and node info, null condition times', () => {
  const { obj, causes } = create(nodes, { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
  const status = obj.status as Json;
  assert.deepEqual(status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal((status.nodeInfo as Json).kubeletVersion, '');
  assert.deepEqual(status.conditions, [{ type: 'Ready', status: 'True', lastHeartbeatTime: null, lastTransitionTime: null }]);
  const tainted = create(nodes, { metadata: { name: 'n2' }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } }).obj;
  assert.equal(spec(tainted).taints.length, 1);
});

test('Node taints: effect must be one kube-apiserver knows, reported under metadata.taints as it does', () => {
  assertCause(create(nodes, { metadata: { name: 'n1' }, spec: { taints: [{ key: 'a', effect: 'Sometimes' }] } }).causes,
    'metadata.taints[0].effect', 'FieldValueNotSupported', 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"');
  assertCause(create(nodes, { metadata: { name: 'n1' }, spec: { taints: [{ key: 'a' }] } }).causes, 'metadata.taints[0].effect', 'FieldValueRequired');
});

test('Events serialise the empty fields of the other version; claim condition times unset are null', () => {
  const core = create(coreEvents, { metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p' } }).obj as Json;
  assert.equal(core.eventTime, null);
  assert.equal(core.reportingComponent, '');
  assert.equal(core.reportingInstance, '');
  const v1 = create(eventsV1, EVENT_V1).obj as Json;
  assert.deepEqual([v1.deprecatedSource, v1.deprecatedFirstTimestamp, v1.deprecatedLastTimestamp], [{}, null, null]);
  const claim = create(pvcs, { metadata: { name: 'c', namespace: 'ns' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }).obj;
  const resizing = statusUpdate(pvcs, withChanges(claim, { 'status.conditions': [{ type: 'Resizing', status: 'True' }] }), claim).obj;
  assert.deepEqual((resizing.status as Json).conditions, [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: null }]);
});

test('discovery carries storageVersionHash as kube-apiserver computes it; events.k8s.io Events hash as the core/v1 kind they are stored as', () => {
  const core = apiResourceList([pods, coreEvents], '', 'v1');
  const events = apiResourceList([eventsV1], 'events.k8s.io', 'v1');
  const hashOf = (list: Json | undefined, name: string): unknown =>
    (list?.resources as Json[]).find((r) => r.name === name)?.storageVersionHash;
  assert.equal(hashOf(core, 'pods'), 'xPOwRZ+Yhw8=');
  assert.equal(hashOf(core, 'events'), 'r2yiGXH7wu8=');
  assert.equal(hashOf(events, 'events'), 'r2yiGXH7wu8=');
});
