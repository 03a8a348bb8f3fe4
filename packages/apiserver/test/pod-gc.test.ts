import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { type EmbeddedTestApiServer, withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { kubeletAliveUntil, NODE_MONITOR_GRACE_SECONDS } from '@pv-controller/apiserver/controllers/pod-gc.js';
import type { Lease, Node } from '@pv-controller/kube/types.js';
import { api, type ApiResponse } from './http-client.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const PODS = '/api/v1/namespaces/default/pods';
const NODE_LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

const pod = (name: string, nodeName?: string, finalizers?: string[]): unknown => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
});

const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const seconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Polls `path` until `done` holds for its answer (the pod GC works on timers). */
async function until(t: EmbeddedTestApiServer, path: string, done: (r: ApiResponse) => boolean): Promise<ApiResponse> {
  for (;;) {
    const r = await api(t.server, 'GET', path);
    if (done(r)) return r;
    await sleep(50);
  }
}

async function create(t: EmbeddedTestApiServer, path: string, body: unknown): Promise<ApiResponse> {
  const r = await api(t.server, 'POST', path, { body });
  assert.equal(r.status, 201, r.text);
  return r;
}

const nodeLease = (name: string, renewMs: number, durationSeconds = 40): unknown => ({
  apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name },
  spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: microTime(renewMs) },
});

test('kubeletAliveUntil: a Node with a fresh Lease or a fresh Ready heartbeat is served; no Node, a stale Lease or a stale or not-True Ready is not', () => {
  const now = Date.parse('2026-01-01T00:01:00Z');
  const node = (ready?: { status: string; lastHeartbeatTime: string }): Node => ({
    metadata: { name: 'n' }, status: ready ? { conditions: [{ type: 'Ready', ...ready }] } : {},
  });
  const lease = (renewTime: string | undefined, leaseDurationSeconds?: number): Lease => ({ metadata: { name: 'n' }, spec: { renewTime, leaseDurationSeconds } });
  assert.equal(kubeletAliveUntil(undefined, lease(microTime(now)), now), undefined, 'a Lease without its Node is not a kubelet');
  assert.equal(kubeletAliveUntil(node(), lease(microTime(now - 10_000)), now), now + 30_000);
  assert.equal(kubeletAliveUntil(node(), lease(microTime(now - 10_000), 5), now), undefined);
  assert.equal(kubeletAliveUntil(node(), lease(undefined), now), undefined);
  assert.equal(kubeletAliveUntil(node(), lease('not a time'), now), undefined);
  assert.equal(kubeletAliveUntil(node(), undefined, now), undefined);
  const fresh = seconds(now - 1000);
  assert.equal(kubeletAliveUntil(node({ status: 'True', lastHeartbeatTime: fresh }), undefined, now), now - 1000 + NODE_MONITOR_GRACE_SECONDS * 1000);
  assert.equal(kubeletAliveUntil(node({ status: 'Unknown', lastHeartbeatTime: fresh }), undefined, now), undefined);
  assert.equal(kubeletAliveUntil(node({ status: 'True', lastHeartbeatTime: seconds(now - 3600_000) }), undefined, now), undefined);
  // A NotReady node whose kubelet still renews its Lease still has a kubelet to finish its pods.
  assert.equal(kubeletAliveUntil(node({ status: 'False', lastHeartbeatTime: fresh }), lease(microTime(now)), now), now + 40_000);
});

test('a pod with no nodeName is deleted at once, grace period or not', () =>
  withEmbeddedTestApiServer(async (t) => {
    await create(t, PODS, pod('unscheduled'));
    const deleted = await api(t.server, 'DELETE', `${PODS}/unscheduled`, { body: { gracePeriodSeconds: 30 } });
    assert.equal(deleted.status, 200);
    assert.equal((await api(t.server, 'GET', `${PODS}/unscheduled`)).status, 404);
  }));

test('a pod on a node that does not exist is Terminating for its grace period, then removed', { timeout: 30_000 }, () =>
  withEmbeddedTestApiServer(async (t) => {
    await create(t, PODS, pod('orphan', 'no-such-node'));
    const deleted = await api(t.server, 'DELETE', `${PODS}/orphan`, { body: { gracePeriodSeconds: 1 } });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.json.metadata.deletionGracePeriodSeconds, 1);
    assert.ok(deleted.json.metadata.deletionTimestamp);
    assert.equal((await api(t.server, 'GET', `${PODS}/orphan`)).status, 200, 'still there during its grace period');
    await until(t, `${PODS}/orphan`, (r) => r.status === 404);
  }));

test('a pod whose node\'s kubelet renews its Lease stays Terminating past its grace period; once the Lease goes, the pod goes', { timeout: 30_000 }, () =>
  withEmbeddedTestApiServer(async (t) => {
    await create(t, '/api/v1/nodes', { metadata: { name: 'live' } });
    await create(t, NODE_LEASES, nodeLease('live', Date.now()));
    await create(t, PODS, pod('served', 'live'));
    // The witness shares the grace period on a node with no kubelet: once it is gone, the pod GC
    // has had its turn at the served pod too.
    await create(t, '/api/v1/nodes', { metadata: { name: 'dead' } });
    await create(t, NODE_LEASES, nodeLease('dead', Date.now() - 3600_000));
    await create(t, PODS, pod('witness', 'dead'));
    await api(t.server, 'DELETE', `${PODS}/served`, { body: { gracePeriodSeconds: 1 } });
    await api(t.server, 'DELETE', `${PODS}/witness`, { body: { gracePeriodSeconds: 1 } });
    await until(t, `${PODS}/witness`, (r) => r.status === 404);
    const served = await api(t.server, 'GET', `${PODS}/served`);
    assert.equal(served.status, 200);
    assert.ok(Date.parse(served.json.metadata.deletionTimestamp) <= Date.now(), 'its grace period is over');
    assert.equal((await api(t.server, 'DELETE', `${NODE_LEASES}/live`)).status, 200);
    await until(t, `${PODS}/served`, (r) => r.status === 404);
  }));

test('a pod on a node with a fresh Ready heartbeat and no Lease stays; once the node goes, the pod goes', { timeout: 30_000 }, () =>
  withEmbeddedTestApiServer(async (t) => {
    const ready = { type: 'Ready', status: 'True', lastHeartbeatTime: seconds(Date.now()), lastTransitionTime: seconds(Date.now()) };
    await create(t, '/api/v1/nodes', { metadata: { name: 'ready' }, status: { conditions: [ready] } });
    await create(t, PODS, pod('served', 'ready'));
    await create(t, PODS, pod('witness', 'never-registered'));
    await api(t.server, 'DELETE', `${PODS}/served`, { body: { gracePeriodSeconds: 1 } });
    await api(t.server, 'DELETE', `${PODS}/witness`, { body: { gracePeriodSeconds: 1 } });
    await until(t, `${PODS}/witness`, (r) => r.status === 404);
    assert.equal((await api(t.server, 'GET', `${PODS}/served`)).status, 200);
    await api(t.server, 'DELETE', '/api/v1/nodes/ready');
    await until(t, `${PODS}/served`, (r) => r.status === 404);
  }));

test('a pod with a finalizer on a node with no kubelet stays Terminating until the finalizer is removed', { timeout: 30_000 }, () =>
  withEmbeddedTestApiServer(async (t) => {
    await create(t, PODS, pod('held', 'gone', ['example.com/hold']));
    await create(t, PODS, pod('witness', 'gone'));
    await api(t.server, 'DELETE', `${PODS}/held`, { body: { gracePeriodSeconds: 1 } });
    await api(t.server, 'DELETE', `${PODS}/witness`, { body: { gracePeriodSeconds: 1 } });
    await until(t, `${PODS}/witness`, (r) => r.status === 404);
    const held = await api(t.server, 'GET', `${PODS}/held`);
    assert.equal(held.status, 200);
    assert.deepEqual(held.json.metadata.finalizers, ['example.com/hold']);
    assert.equal((await api(t.server, 'PATCH', `${PODS}/held`, { body: { metadata: { finalizers: null } }, headers: MERGE })).status, 200);
    await until(t, `${PODS}/held`, (r) => r.status === 404);
  }));

test('with the pod GC off, a pod on a node with no kubelet stays Terminating, as on kube-apiserver alone', { timeout: 30_000 }, () =>
  withEmbeddedTestApiServer(async (t) => {
    await create(t, PODS, pod('stays', 'gone'));
    const deleted = await api(t.server, 'DELETE', `${PODS}/stays`, { body: { gracePeriodSeconds: 0 } });
    // A zero grace period removes it at once, kubelet or not (a force delete).
    assert.equal(deleted.status, 200);
    assert.equal((await api(t.server, 'GET', `${PODS}/stays`)).status, 404);
    await create(t, PODS, pod('stays', 'gone'));
    await api(t.server, 'DELETE', `${PODS}/stays`, { body: { gracePeriodSeconds: 1 } });
    const due = Date.now() + 1000;
    // Nothing to witness here: the collector is off, so this waits past the grace period once.
    while (Date.now() < due + 1500) await sleep(100);
    const stays = await api(t.server, 'GET', `${PODS}/stays`);
    assert.equal(stays.status, 200);
    assert.ok(stays.json.metadata.deletionTimestamp);
  }, { podGarbageCollector: false }));
