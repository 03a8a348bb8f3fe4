import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useServerAndTransport } from '../../helpers/apiserver.js';
import { KubeApiClient, WriteRefusedError } from '../../../src/kube-client/kube-api-client.js';
import { MergedStore } from '../../../src/kube-client/cache/merged-store.js';
import { ApiError, isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newClaim, newVolume } from '../../helpers/objects.js';

const fixture = useServerAndTransport();

test('successful writes land in the own-write cache with the server-assigned resourceVersion', async () => {
  const volumes = new MergedStore<PersistentVolume>();
  const claims = new MergedStore<PersistentVolumeClaim>();
  const api = new KubeApiClient(fixture.transport, { volumes, claims });
  const created = await api.createVolume(newVolume('pv-own'));
  assert.equal(volumes.get('pv-own')?.metadata.resourceVersion, created.metadata.resourceVersion);
  const updated = await api.updateVolumeStatus({ ...created, status: { phase: 'Available' } });
  assert.equal(volumes.get('pv-own')?.status?.phase, 'Available');
  assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  assert.equal(typeof updated.metadata.creationTimestamp, 'string', 'plain JSON: timestamps stay strings');

  const claim = await fixture.transport.request<PersistentVolumeClaim>({
    method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/persistentvolumeclaims', body: newClaim('default', 'c-own'),
  });
  await api.updateClaim({ ...claim, metadata: { ...claim.metadata, annotations: { a: 'b' } } });
  assert.equal(claims.get('default/c-own')?.metadata.annotations?.a, 'b');

  // The server's pv-protection finalizer keeps a deleted PV until the finalizer goes.
  await api.deleteVolume('pv-own', updated.metadata.uid);
  const deleting = volumes.get('pv-own');
  assert.ok(deleting?.metadata.deletionTimestamp, 'the deleting copy is cached');
  await api.updateVolume({ ...deleting, metadata: { ...deleting.metadata, finalizers: [] } });
  assert.equal(volumes.get('pv-own'), undefined, 'removing the last finalizer deletes it from the cache');
  assert.equal(await api.getVolume('pv-own'), undefined);
});

test('a write with a stale resourceVersion throws a Conflict and is counted as a 409', async () => {
  const api = new KubeApiClient(fixture.transport);
  const created = await api.createVolume(newVolume('pv-stale'));
  await api.updateVolume({ ...created, metadata: { ...created.metadata, labels: { x: '1' } } });
  const before = fixture.transport.counters.snapshot().update?.conflicts ?? 0;
  await assert.rejects(api.updateVolume({ ...created, metadata: { ...created.metadata, labels: { x: '2' } } }), (e: unknown) => isConflict(e));
  assert.equal(fixture.transport.counters.snapshot().update?.conflicts, before + 1);
});

test('a missing object reads as undefined, and a delete of one throws NotFound', async () => {
  const api = new KubeApiClient(fixture.transport);
  assert.equal(await api.getClaim('default', 'nope'), undefined);
  assert.equal(await api.getStorageClass('nope'), undefined);
  await assert.rejects(api.deleteVolume('nope'), (e: unknown) => isNotFound(e));
});

test('while the write guard refuses, writes throw and are never sent', async () => {
  let leading = false;
  const api = new KubeApiClient(fixture.transport, { writeGuard: () => (leading ? undefined : 'not the leader') });
  const sentBefore = fixture.transport.counters.snapshot().create?.requests ?? 0;
  await assert.rejects(api.createVolume(newVolume('pv-guarded')), WriteRefusedError);
  assert.equal(fixture.transport.counters.snapshot().create?.requests ?? 0, sentBefore);
  assert.equal(await api.getVolume('pv-guarded'), undefined, 'reads still work');
  leading = true;
  await api.createVolume(newVolume('pv-guarded'));
});

test('objects read through the generated API equal the server’s JSON, timestamps byte for byte', async () => {
  const api = new KubeApiClient(fixture.transport);
  await api.createVolume(newVolume('pv-same'));
  const raw = await fixture.transport.request<PersistentVolume>({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/pv-same' });
  assert.match(raw.metadata.creationTimestamp ?? '', /:\d\dZ$/);
  assert.deepEqual(await api.getVolume('pv-same'), raw);
  const claim = await fixture.transport.request<PersistentVolumeClaim>({
    method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/persistentvolumeclaims', body: newClaim('default', 'c-same'),
  });
  assert.deepEqual(await api.getClaim('default', 'c-same'), claim);
});

test('a rejected write comes back as an Invalid ApiError carrying the server’s causes', async () => {
  const api = new KubeApiClient(fixture.transport);
  const bad = newVolume('pv-invalid');
  delete (bad.spec as { capacity?: unknown }).capacity;
  await assert.rejects(api.createVolume(bad), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.ok((e.details.causes ?? []).some((c) => c.field === 'spec.capacity'), JSON.stringify(e.details));
    return true;
  });
});

test('pods of a namespace are listed as plain JSON', async () => {
  const api = new KubeApiClient(fixture.transport);
  await fixture.transport.request({
    method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/pods',
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-list' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c-own' } }] } },
  });
  const pods = await api.listPods('default');
  const pod = pods.find((p) => p.metadata.name === 'p-list');
  assert.equal(pod?.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName, 'c-own');
  assert.equal(typeof pod?.metadata.creationTimestamp, 'string');
  assert.equal(fixture.transport.counters.snapshot().list?.errors, 0);
});
