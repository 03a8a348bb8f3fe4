import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { daemonSetStrategy as daemonSets, deploymentStrategy as deployments, replicaSetStrategy as replicaSets } from '@pv-controller/apiserver/resources/apps/apps-workloads.js';
import { replicationControllerStrategy as rcs } from '@pv-controller/apiserver/resources/core/replicationcontrollers.js';
import { finalizersForPropagation } from '@pv-controller/apiserver/registry/propagation-finalizers.js';
import { create, statusUpdate, update } from './helpers.js';

type Json = Record<string, unknown>;
const now = new Date('2024-05-01T10:00:30Z');
const template = (labels: Json = { app: 'web' }, spec: Json = {}): Json =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });
const workload = (apiVersion: string, kind: string, spec: Json): KubeObject =>
  ({ apiVersion, kind, metadata: { name: 'web', namespace: 'default' }, spec } as KubeObject);
const deployment = (spec: Json): KubeObject => workload('apps/v1', 'Deployment', { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec });
const specOf = (obj: KubeObject): Json => (obj as unknown as { spec: Json }).spec;
const fields = (causes: { field?: string; message?: string }[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

test('a Deployment gets one replica, a 25%/25% rolling update, 10 revisions, a 600 s deadline, pod-spec defaults in its template and an empty status', () => {
  const { obj, causes } = create(deployments, deployment({}));
  assert.deepEqual(causes, []);
  const spec = specOf(obj);
  assert.equal(spec.replicas, 1);
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  const podSpec = (spec.template as { spec: Json }).spec;
  assert.equal(podSpec.restartPolicy, 'Always');
  assert.equal(podSpec.schedulerName, 'default-scheduler');
  assert.equal(podSpec.enableServiceLinks, undefined, 'enableServiceLinks is a Pod default, not a pod spec one');
  assert.equal(podSpec.tolerations, undefined, 'no Pod admission runs on a template');
  assert.deepEqual((obj as unknown as { status: Json }).status, {});
  assert.deepEqual(deployments.tableRow(obj, now), ['web', '0/1', 0, 0, '30s', 'app', 'nginx', 'app=web']);
});

test('a Deployment needs a selector matching its template labels, replicas >= 0 and a template restarting Always, each as kube-apiserver words it', () => {
  assert.deepEqual(fields(create(deployments, deployment({ selector: undefined })).causes), [
    'spec.selector: Required value',
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(fields(create(deployments, deployment({ replicas: -1, selector: { matchLabels: { app: 'y' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } } })).causes), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    'spec.template.spec.containers[0].image: Required value',
  ]);
  assert.deepEqual(fields(create(deployments, deployment({ selector: {}, template: { spec: { containers: [] } } })).causes), [
    'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    'spec.template.spec.containers: Required value',
  ]);
  assert.deepEqual(fields(create(deployments, deployment({ template: template({ app: 'web' }, { restartPolicy: 'Never' }) })).causes), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
  ]);
});

test('a Deployment\'s selector is immutable, a spec change counts a generation and a /status write changes only status', () => {
  const stored = create(deployments, deployment({})).obj;
  const moved = update(deployments, deployment({ selector: { matchLabels: { app: 'new' } }, template: template({ app: 'new' }) }), stored);
  assert.deepEqual(fields(moved.causes), ['spec.selector: Invalid value: {"matchLabels":{"app":"new"}}: field is immutable']);
  assert.deepEqual(update(deployments, deployment({ replicas: 3 }), stored).causes, []);
  const status = statusUpdate(deployments, { ...deployment({ replicas: 9 }), status: { replicas: 2, readyReplicas: 1 } } as KubeObject, stored);
  assert.equal(specOf(status.obj).replicas, 1);
  assert.deepEqual((status.obj as unknown as { status: Json }).status, { replicas: 2, readyReplicas: 1 });
  assert.equal(deployments.tracksGeneration, true);
});

test('a ReplicaSet defaults one replica, starts with status.replicas 0 and prints DESIRED/CURRENT/READY', () => {
  const { obj, causes } = create(replicaSets, workload('apps/v1', 'ReplicaSet', { selector: { matchLabels: { app: 'web' } }, template: template() }));
  assert.deepEqual(causes, []);
  assert.equal(specOf(obj).replicas, 1);
  assert.deepEqual((obj as unknown as { status: Json }).status, { replicas: 0 });
  assert.deepEqual(replicaSets.tableRow(obj, now), ['web', 1, 0, 0, '30s', 'app', 'nginx', 'app=web']);
});

test('a DaemonSet defaults a one-node rolling update, carries template generation 1, and refuses an absent or empty selector as kube-apiserver does', () => {
  const { obj, causes } = create(daemonSets, workload('apps/v1', 'DaemonSet', { selector: { matchLabels: { app: 'web' } }, template: template() }));
  assert.deepEqual(causes, []);
  assert.deepEqual(specOf(obj).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(obj.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
  assert.deepEqual((obj as unknown as { status: Json }).status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  assert.deepEqual(fields(create(daemonSets, workload('apps/v1', 'DaemonSet', {})).causes), [
    'spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`',
    'spec.template.spec.containers: Required value',
  ]);
  assert.deepEqual(fields(create(daemonSets, workload('apps/v1', 'DaemonSet', { selector: {} })).causes), [
    'spec.selector: Invalid value: {}: empty selector is invalid for daemonset',
    'spec.template.spec.containers: Required value',
  ]);
  const changed = update(daemonSets, workload('apps/v1', 'DaemonSet', { selector: { matchLabels: { app: 'web' } },
    template: template({ app: 'web' }, { containers: [{ name: 'app', image: 'nginx:2' }] }) }), obj);
  assert.equal(changed.obj.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');
});

test('a ReplicationController takes its selector and labels from the template, and orphans its pods on a delete without a policy', () => {
  const { obj, causes } = create(rcs, workload('v1', 'ReplicationController', { template: template() }));
  assert.deepEqual(causes, []);
  assert.deepEqual(specOf(obj).selector, { app: 'web' });
  assert.deepEqual(obj.metadata.labels, { app: 'web' });
  assert.equal(specOf(obj).replicas, 1);
  assert.equal(rcs.fields(obj)['status.replicas'], '0');
  assert.deepEqual(fields(create(rcs, workload('v1', 'ReplicationController', {})).causes), ['spec.selector: Required value', 'spec.template: Required value']);
  assert.deepEqual(fields(create(rcs, workload('v1', 'ReplicationController', { replicas: -1, selector: { app: 'y' },
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c' }] } } })).causes), [
    'spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`',
    'spec.template.spec.containers[0].image: Required value',
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  ]);
  assert.equal(rcs.orphansByDefault, true);
  assert.deepEqual(finalizersForPropagation([], { orphansByDefault: true }), ['orphan']);
  assert.equal(finalizersForPropagation([], { orphansByDefault: true, propagationPolicy: 'Background' }), undefined);
});
