/**
 * Strategic merge patches merge each kind's lists as kube-apiserver does: by the patch strategy
 * and merge key its published schema gives, for every kind served (not only the storage kinds),
 * in the order apimachinery's strategicpatch gives (an element the patch adds, named before any
 * the server has, goes first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { applyPatch } from '@pv-controller/apiserver/endpoints/patch/index.js';
import {
  daemonSetStrategy,
  deploymentStrategy,
  nodeStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeStrategy,
  podStrategy,
  replicaSetStrategy,
  replicationControllerStrategy,
  serviceStrategy,
} from '@pv-controller/apiserver/resources/index.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';

const SMP = 'application/strategic-merge-patch+json';

type Json = Record<string, unknown>;

function smp(strategy: ResourceStrategy, obj: Json, patch: Json): Json {
  return applyPatch(SMP, obj as unknown as KubeObject, patch, strategy) as unknown as Json;
}

const app = { name: 'app', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'prod' }] };
const sidecar = { name: 'sidecar', image: 'envoy:1' };
const podSpec = { containers: [app, sidecar] };
const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };
const workload = (apiVersion: string, kind: string): Json => ({ apiVersion, kind, metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
const imagePatch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } } };
const patchedContainers = [{ ...app, image: 'nginx:2' }, sidecar];

function templateContainers(obj: Json): unknown {
  return ((obj.spec as Json).template as { spec: Json }).spec.containers;
}

test('a strategic patch of a Deployment merges its template containers by name: the sidecar, ports and env stay', () => {
  const out = smp(deploymentStrategy, workload('apps/v1', 'Deployment'), imagePatch);
  assert.deepEqual(templateContainers(out), patchedContainers);
});

test('DaemonSet, ReplicaSet and ReplicationController template containers merge by name', () => {
  assert.deepEqual(templateContainers(smp(daemonSetStrategy, workload('apps/v1', 'DaemonSet'), imagePatch)), patchedContainers);
  assert.deepEqual(templateContainers(smp(replicaSetStrategy, workload('apps/v1', 'ReplicaSet'), imagePatch)), patchedContainers);
  const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, template } };
  assert.deepEqual(templateContainers(smp(replicationControllerStrategy, rc, imagePatch)), patchedContainers);
});

test('a workload template\'s volumes merge by name and env by name; its tolerations (atomic) are replaced', () => {
  const obj = workload('apps/v1', 'Deployment');
  const spec = ((obj.spec as Json).template as { spec: Json }).spec;
  spec.volumes = [{ name: 'a', emptyDir: {} }, { name: 'b', emptyDir: {} }];
  spec.tolerations = [{ key: 'x', operator: 'Exists' }];
  const out = smp(deploymentStrategy, obj, { spec: { template: { spec: {
    volumes: [{ name: 'b', configMap: { name: 'cm' }, $retainKeys: ['name', 'configMap'] }],
    tolerations: [{ key: 'y', operator: 'Exists' }],
    containers: [{ name: 'app', env: [{ name: 'DEBUG', value: '1' }] }],
  } } } });
  const got = ((out.spec as Json).template as { spec: Json }).spec;
  assert.deepEqual(got.volumes, [{ name: 'a', emptyDir: {} }, { name: 'b', configMap: { name: 'cm' } }]);
  assert.deepEqual(got.tolerations, [{ key: 'y', operator: 'Exists' }]);
  assert.deepEqual((got.containers as Json[])[0].env, [{ name: 'DEBUG', value: '1' }, { name: 'MODE', value: 'prod' }]);
});

test('a Pod\'s container ports merge by containerPort', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, protocol: 'TCP' }] }] } };
  const out = smp(podStrategy, pod, { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }] } });
  assert.deepEqual((out.spec as { containers: Json[] }).containers[0].ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443, protocol: 'TCP' }]);
});

test('a Pod\'s scheduling gates merge by name, its resize policy (atomic) is replaced', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {
    schedulingGates: [{ name: 'a' }],
    containers: [{ name: 'app', image: 'nginx:1', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }, { resourceName: 'memory', restartPolicy: 'NotRequired' }] }],
  } };
  const out = smp(podStrategy, pod, { spec: {
    schedulingGates: [{ name: 'b' }],
    containers: [{ name: 'app', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }],
  } });
  const spec = out.spec as { schedulingGates: unknown; containers: Json[] };
  assert.deepEqual(spec.schedulingGates, [{ name: 'b' }, { name: 'a' }]);
  assert.deepEqual(spec.containers[0].resizePolicy, [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }]);
});

test('a Service\'s ports merge by port', () => {
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }] } };
  const out = smp(serviceStrategy, svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } });
  assert.deepEqual((out.spec as Json).ports, [{ name: 'http', port: 80, targetPort: 9090 }, { name: 'https', port: 443, targetPort: 8443 }]);
});

test('a Node\'s status conditions and addresses merge by type', () => {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: {
    conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'n' }],
  } };
  const out = smp(nodeStrategy, node, { status: { conditions: [{ type: 'Ready', status: 'False' }], addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } });
  assert.deepEqual((out.status as Json).conditions, [{ type: 'Ready', status: 'False' }, { type: 'DiskPressure', status: 'False' }]);
  assert.deepEqual((out.status as Json).addresses, [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'n' }]);
});

test('PersistentVolume and claim lists merge as before: finalizers a set, conditions by type, access modes replaced', () => {
  const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v', finalizers: ['a'] }, spec: { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], mountOptions: ['ro'] } };
  const outPv = smp(persistentVolumeStrategy, pv, { metadata: { finalizers: ['b'] }, spec: { accessModes: ['ReadWriteMany'], mountOptions: ['hard'] } });
  assert.deepEqual((outPv.metadata as Json).finalizers, ['b', 'a']);
  assert.deepEqual(outPv.spec, { accessModes: ['ReadWriteMany'], mountOptions: ['hard'] });
  const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] }, status: { conditions: [{ type: 'Resizing', status: 'True' }] } };
  const outPvc = smp(persistentVolumeClaimStrategy, pvc, { spec: { accessModes: ['ReadOnlyMany'] }, status: { conditions: [{ type: 'ModifyingVolume', status: 'True' }] } });
  assert.deepEqual((outPvc.spec as Json).accessModes, ['ReadOnlyMany']);
  assert.deepEqual((outPvc.status as Json).conditions, [{ type: 'ModifyingVolume', status: 'True' }, { type: 'Resizing', status: 'True' }]);
});

test('merged lists keep kube-apiserver\'s order: patch elements in the patch\'s order, server-only ones before the next they preceded', () => {
  const names = (obj: Json): unknown => (obj.spec as { containers: Json[] }).containers.map((c) => c.name);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }, { name: 'd', image: 'i' }] } };
  assert.deepEqual(names(smp(podStrategy, pod, { spec: { containers: [{ name: 'c', image: 'i' }] } })), ['c', 'a', 'b', 'd']);
  assert.deepEqual(names(smp(podStrategy, pod, { spec: { containers: [{ name: 'c', image: 'i' }, { name: 'b', image: 'j' }] } })), ['c', 'a', 'b', 'd']);
  assert.deepEqual(names(smp(podStrategy, pod, { spec: { containers: [{ name: 'd', image: 'j' }, { name: 'a', image: 'j' }] } })), ['b', 'd', 'a']);
  assert.deepEqual(names(smp(podStrategy, pod, { spec: { '$setElementOrder/containers': [{ name: 'd' }, { name: 'c' }, { name: 'a' }], containers: [{ name: 'c', image: 'i' }] } })), ['b', 'd', 'c', 'a']);
});
