/**
 * The controller's caches keep objects without managedFields (cache-transform.ts), and a write
 * built from such a copy leaves the server's field-ownership record in place: the server keeps
 * the stored managedFields when a PUT omits them, as kube-apiserver does (its fieldmanager's
 * `decodeLiveOrNew`); only an explicit `[]` clears them. Runs on the real control plane too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useServerAndTransport } from '../../../helpers/apiserver.js';
import { MergedStore } from '../../../../src/kube-client/cache/merged-store.js';
import { Reflector } from '../../../../src/kube-client/cache/reflector.js';
import { KubeApiClient } from '../../../../src/kube-client/kube-api-client.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { newVolume, silentLog, waitFor } from '../../../helpers/objects.js';

interface ManagedEntry {
  manager?: string;
  subresource?: string;
  fieldsV1?: { 'f:spec'?: Record<string, unknown>; 'f:metadata'?: Record<string, unknown> };
}

const fixture = useServerAndTransport();

function entriesOf(pv: PersistentVolume): ManagedEntry[] {
  return (pv.metadata.managedFields ?? []) as ManagedEntry[];
}

function ownsCapacity(pv: PersistentVolume): boolean {
  return entriesOf(pv).some((e) => e.fieldsV1?.['f:spec']?.['f:capacity'] !== undefined);
}

test('the cache keeps a copy without managedFields whether it came from the list, the watch or an own write', async (t) => {
  const volumes = new MergedStore<PersistentVolume>();
  const api = new KubeApiClient(fixture.transport, { volumes });
  const reflector = new Reflector({ kind: 'PersistentVolume', path: '/api/v1/persistentvolumes', store: volumes, transport: fixture.transport, log: silentLog });
  t.after(async () => {
    await reflector.stop();
    await api.deleteVolume('mf-listed').catch(() => undefined);
    await api.deleteVolume('mf-watched').catch(() => undefined);
  });
  const listed = await new KubeApiClient(fixture.transport).createVolume(newVolume('mf-listed'));
  assert.ok(entriesOf(listed).length > 0, 'the server records field ownership on create');
  reflector.start();
  await waitFor(() => reflector.hasSynced(), 'initial list');
  const answered = await api.createVolume(newVolume('mf-watched'));
  assert.ok(entriesOf(answered).length > 0, 'the caller still gets the server’s whole answer');
  await new KubeApiClient(fixture.transport).updateVolume({ ...answered, metadata: { ...answered.metadata, labels: { tier: 'gold' } } });
  await waitFor(() => volumes.get('mf-watched')?.metadata.labels?.tier === 'gold', 'MODIFIED through the watch');
  for (const name of ['mf-listed', 'mf-watched']) {
    const cached = volumes.get(name)!;
    assert.equal(cached.metadata.managedFields, undefined, `${name}: no managedFields in the cache`);
    assert.equal(cached.metadata.name, name);
    assert.ok(cached.metadata.resourceVersion && cached.metadata.uid && cached.metadata.creationTimestamp, `${name}: the rest of metadata kept`);
  }
});

test('a PUT of a cached copy (no managedFields) keeps the stored managedFields, on the object and on status', async (t) => {
  const volumes = new MergedStore<PersistentVolume>();
  const api = new KubeApiClient(fixture.transport, { volumes });
  t.after(() => api.deleteVolume('mf-put').catch(() => undefined));
  await api.createVolume(newVolume('mf-put'));
  const cached = volumes.get('mf-put')!;
  assert.equal(cached.metadata.managedFields, undefined);
  const labelled = await api.updateVolume({ ...cached, metadata: { ...cached.metadata, labels: { tier: 'gold' } } });
  assert.ok(ownsCapacity(labelled), 'the create’s ownership of spec.capacity survives a PUT without managedFields');
  assert.ok(entriesOf(labelled).some((e) => e.fieldsV1?.['f:metadata']?.['f:labels'] !== undefined), 'the PUT’s own change is recorded');
  const fromCache = volumes.get('mf-put')!;
  const phased = await api.updateVolumeStatus({ ...fromCache, status: { phase: 'Available' } });
  assert.ok(ownsCapacity(phased), 'a status PUT without managedFields keeps them too');
  assert.ok(entriesOf(phased).some((e) => e.subresource === 'status'));
});

test('a PUT with managedFields: [] clears the record (the one way to drop it)', async (t) => {
  const api = new KubeApiClient(fixture.transport);
  t.after(() => api.deleteVolume('mf-reset').catch(() => undefined));
  const created = await api.createVolume(newVolume('mf-reset'));
  const reset = await api.updateVolume({ ...created, metadata: { ...created.metadata, managedFields: [] } });
  assert.equal(reset.metadata.managedFields, undefined);
});
