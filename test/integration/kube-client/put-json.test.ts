import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useServerAndTransport } from '../../helpers/apiserver.js';
import { KubeApiClient, WriteRefusedError } from '../../../src/kube-client/kube-api-client.js';
import { MergedStore } from '../../../src/kube-client/cache/merged-store.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newClaim, newVolume } from '../../helpers/objects.js';

const fixture = useServerAndTransport();

function getVolumeJson(name: string): Promise<PersistentVolume> {
  return fixture.transport.request<PersistentVolume>({ method: 'GET', verb: 'get', path: `/api/v1/persistentvolumes/${name}` });
}

test('a volume update and a status update return exactly the server’s JSON and are counted as updates', async () => {
  const api = new KubeApiClient(fixture.transport);
  const created = await api.createVolume(newVolume('pv-put'));
  const before = fixture.transport.counters.snapshot().update?.requests ?? 0;
  const labelled = await api.updateVolume({ ...created, metadata: { ...created.metadata, labels: { tier: 'a' } } });
  assert.deepEqual(labelled, await getVolumeJson('pv-put'));
  const phased = await api.updateVolumeStatus({ ...labelled, status: { phase: 'Available' } });
  assert.deepEqual(phased, await getVolumeJson('pv-put'));
  assert.equal(phased.status?.phase, 'Available');
  assert.match(phased.metadata.creationTimestamp ?? '', /:\d\dZ$/, 'timestamps byte for byte');
  assert.equal(fixture.transport.counters.snapshot().update?.requests, before + 2);
});

test('a claim update and a status update reach the own-write cache under namespace/name', async () => {
  const claims = new MergedStore<PersistentVolumeClaim>();
  const api = new KubeApiClient(fixture.transport, { claims });
  const claim = await fixture.transport.request<PersistentVolumeClaim>({
    method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/persistentvolumeclaims', body: newClaim('default', 'c-put'),
  });
  const annotated = await api.updateClaim({ ...claim, metadata: { ...claim.metadata, annotations: { a: 'b' } } });
  const pending = await api.updateClaimStatus({ ...annotated, status: { phase: 'Pending' } });
  const { managedFields: _record, ...metadata } = pending.metadata;
  assert.deepEqual(claims.get('default/c-put'), { ...pending, metadata }, 'the answer, less managedFields (cache-transform.ts)');
  assert.equal(pending.metadata.annotations?.a, 'b');
  assert.equal(pending.status?.phase, 'Pending');
});

test('a stale status update is a Conflict naming the object, and a refused one is never sent', async () => {
  const api = new KubeApiClient(fixture.transport);
  const created = await api.createVolume(newVolume('pv-put-stale'));
  await api.updateVolumeStatus({ ...created, status: { phase: 'Available' } });
  await assert.rejects(api.updateVolumeStatus({ ...created, status: { phase: 'Released' } }), (e: unknown) => isConflict(e));

  const refusing = new KubeApiClient(fixture.transport, { writeGuard: () => 'not the leader' });
  const sent = fixture.transport.counters.snapshot().update?.requests ?? 0;
  await assert.rejects(refusing.updateVolume(created), (e: unknown) => {
    assert.ok(e instanceof WriteRefusedError);
    assert.match(e.message, /update PersistentVolume pv-put-stale/);
    return true;
  });
  assert.equal(fixture.transport.counters.snapshot().update?.requests ?? 0, sent);
});
