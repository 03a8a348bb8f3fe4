/**
 * Making a Retained volume Available again (docs/lifecycle.md): `pv-controller.io/reuse` on a
 * Released PV, through the embedded API server, the shipped modules and the real host-path plugin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL, ANN_REUSE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster } from '../helpers/cluster.js';
import { TestApi } from './provisioning-helpers.js';
import { ReclaimApi, claimFor, entries, exists, fill, reclaimModules, volumeSyncsPass, waitFor } from './reclaim-helpers.js';

async function withApis(body: (api: ReclaimApi, classes: TestApi, more: { syncs: (n: number) => Promise<void> }) => Promise<void>): Promise<void> {
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const classes = new TestApi(cluster.kc);
  try {
    await classes.createClass({
      metadata: { name: 'kept', annotations: { [ANN_RELEASED_TTL]: '1h' } },
      provisioner: HOST_PATH_PROVISIONER,
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'Immediate',
    });
    await body(api, classes, { syncs: (n) => volumeSyncsPass(cluster.controller!, n) });
  } finally {
    api.close();
    classes.close();
    await cluster.stop();
  }
}

async function bound(api: ReclaimApi, claimName: string, volumeName?: string): Promise<PersistentVolume> {
  const claim = claimFor(claimName, volumeName);
  await api.createClaim({ ...claim, spec: { ...claim.spec, storageClassName: 'kept' } });
  const c = await waitFor(async () => {
    const got = await api.claim(claimName);
    return got?.status?.phase === 'Bound' ? got : undefined;
  }, `claim ${claimName} to be Bound`);
  return (await api.volume(c.spec.volumeName ?? ''))!;
}

async function releasedWithDeadline(api: ReclaimApi, claimName: string): Promise<PersistentVolume> {
  const pv = await bound(api, claimName);
  await fill(pv.spec.hostPath!.path);
  await api.deleteClaim(claimName);
  return waitFor(async () => {
    const got = await api.volume(pv.metadata.name!);
    return got?.status?.phase === 'Released' && got.metadata.annotations?.[ANN_RELEASED_DEADLINE] ? got : undefined;
  }, 'the PV to be Released with a deadline');
}

async function requestReuse(api: ReclaimApi, name: string, value: string): Promise<void> {
  await api.modifyVolume(name, (pv) => ({ ...pv, metadata: { ...pv.metadata, annotations: { ...pv.metadata.annotations, [ANN_REUSE]: value } } }));
}

async function available(api: ReclaimApi, name: string): Promise<PersistentVolume> {
  return waitFor(async () => {
    const got = await api.volume(name);
    return got?.status?.phase === 'Available' ? got : undefined;
  }, `PV ${name} to be Available`);
}

test('reuse "true": a Released volume becomes Available with its data, loses its deadline, and a new claim binds it', async () => {
  await withApis(async (api) => {
    const pv = await releasedWithDeadline(api, 'data');
    const name = pv.metadata.name!;
    await requestReuse(api, name, 'true');
    const free = await available(api, name);
    assert.equal(free.spec.claimRef, undefined, 'claimRef cleared');
    assert.equal(free.metadata.annotations?.[ANN_RELEASED_DEADLINE], undefined, 'deadline removed');
    assert.equal(free.metadata.annotations?.[ANN_REUSE], undefined, 'request consumed');
    assert.equal(free.metadata.annotations?.[ANN_RELEASED_TTL], '1h', 'the TTL stays for the next release');
    assert.deepEqual(await entries(pv.spec.hostPath!.path), ['data.txt', 'sub'], 'the data is kept');
    assert.ok((await api.events(name)).some((e) => e.reason === 'VolumeReused'));
    const again = await bound(api, 'again', name);
    assert.equal(again.metadata.name, name, 'the new claim binds the reused volume');
  });
});

test('reuse "wipe": the data is scrubbed through the Recycle path, then the volume is Available', async () => {
  await withApis(async (api) => {
    const pv = await releasedWithDeadline(api, 'data');
    await requestReuse(api, pv.metadata.name!, 'wipe');
    const free = await available(api, pv.metadata.name!);
    assert.equal(free.spec.claimRef, undefined);
    assert.equal(free.metadata.annotations?.[ANN_RELEASED_DEADLINE], undefined);
    assert.ok(await exists(pv.spec.hostPath!.path), 'the directory stays');
    assert.deepEqual(await entries(pv.spec.hostPath!.path), [], 'emptied');
  });
});

test('reuse on a Bound volume is refused with a Warning and the request removed; the binding stays', async () => {
  await withApis(async (api, _classes, { syncs }) => {
    const pv = await bound(api, 'live');
    await fill(pv.spec.hostPath!.path);
    await requestReuse(api, pv.metadata.name!, 'wipe');
    const refusal = await waitFor(async () => (await api.events(pv.metadata.name!)).find((e) => e.reason === 'VolumeReuseRefused'), 'a VolumeReuseRefused Warning');
    assert.equal(refusal.type, 'Warning');
    await waitFor(async () => (await api.volume(pv.metadata.name!))?.metadata.annotations?.[ANN_REUSE] === undefined, 'the request removed');
    await syncs(4);
    const after = (await api.volume(pv.metadata.name!))!;
    assert.equal(after.status?.phase, 'Bound');
    assert.equal(after.spec.claimRef?.name, 'live');
    assert.ok(await exists(join(pv.spec.hostPath!.path, 'data.txt')), 'nothing wiped');
  });
});

test('a Released volume an administrator unbinds by hand before its deadline loses the deadline', async () => {
  await withApis(async (api) => {
    const pv = await releasedWithDeadline(api, 'data');
    await api.modifyVolume(pv.metadata.name!, (current) => ({ ...current, spec: { ...current.spec, claimRef: undefined } }));
    await waitFor(async () => {
      const got = await api.volume(pv.metadata.name!);
      return got?.status?.phase === 'Available' && got.metadata.annotations?.[ANN_RELEASED_DEADLINE] === undefined;
    }, 'the PV Available without its deadline');
    assert.ok((await api.events(pv.metadata.name!)).some((e) => e.reason === 'ReleasedDeadlineCleared'));
    assert.ok(await exists(join(pv.spec.hostPath!.path, 'data.txt')));
  });
});
