/**
 * A Released volume's time to live end to end (docs/lifecycle.md): the embedded API server, the
 * shipped controller modules and the real host-path plugin on a temp root. The class's TTL is
 * copied onto the PV; the deadline is written when the PV is Released, survives a controller
 * restart, and at it the volume is deleted as policy Delete deletes. A TTL forged on PVs that
 * point at data pv-controller did not make for them deletes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { TestApi } from './provisioning-helpers.js';
import { ReclaimApi, claimFor, decoy, exists, fill, reclaimModules, staticVolume, volumeSyncsPass, waitFor } from './reclaim-helpers.js';

interface Rig {
  cluster: TestCluster;
  api: ReclaimApi;
  classes: TestApi;
}

async function withRig(body: (r: Rig) => Promise<void>): Promise<void> {
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const classes = new TestApi(cluster.kc);
  try {
    await body({ cluster, api, classes });
  } finally {
    api.close();
    classes.close();
    await cluster.stop();
  }
}

async function ttlClass(r: Rig, name: string, ttl: string | undefined): Promise<void> {
  await r.classes.createClass({
    metadata: { name, ...(ttl === undefined ? {} : { annotations: { [ANN_RELEASED_TTL]: ttl } }) },
    provisioner: HOST_PATH_PROVISIONER,
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'Immediate',
  });
}

async function boundVolume(r: Rig, claimName: string, cls: string, namespace = 'default'): Promise<PersistentVolume> {
  const claim = claimFor(claimName);
  await r.api.createClaim({ ...claim, metadata: { ...claim.metadata, namespace }, spec: { ...claim.spec, storageClassName: cls } });
  const bound = await waitFor(async () => {
    const c = await r.api.claim(claimName, namespace);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, `claim ${namespace}/${claimName} to be Bound`);
  return (await r.api.volume(bound.spec.volumeName ?? ''))!;
}

async function deadlineOf(r: Rig, name: string): Promise<{ pv: PersistentVolume; deadline: Date }> {
  return waitFor(async () => {
    const pv = await r.api.volume(name);
    const raw = pv?.metadata.annotations?.[ANN_RELEASED_DEADLINE];
    return pv && raw ? { pv, deadline: new Date(raw) } : undefined;
  }, `PV ${name} to carry a released deadline`);
}

async function reasons(r: Rig, name: string): Promise<string[]> {
  return (await r.api.events(name)).map((e) => String(e.reason));
}

test("a Released volume with its class's TTL is kept until the deadline written on it, then deleted with its directory", async () => {
  await withRig(async (r) => {
    await ttlClass(r, 'hp-ttl', '3s');
    const pv = await boundVolume(r, 'data', 'hp-ttl');
    const name = pv.metadata.name!;
    assert.equal(pv.metadata.annotations?.[ANN_RELEASED_TTL], '3s', "the class's TTL is copied onto the PV");
    assert.equal(pv.metadata.annotations?.[ANN_RELEASED_DEADLINE], undefined, 'no deadline while Bound');
    const dir = pv.spec.hostPath!.path;
    await fill(dir);
    const deletedAt = Date.now();
    await r.api.deleteClaim('data');
    const { pv: released, deadline } = await deadlineOf(r, name);
    assert.equal(released.status?.phase, 'Released');
    assert.match(released.metadata.annotations![ANN_RELEASED_DEADLINE]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'RFC 3339, whole seconds');
    assert.ok(deadline.getTime() >= deletedAt + 3000, 'the deadline is the TTL after the release, never earlier');
    if (Date.now() < deadline.getTime()) assert.ok(await exists(join(dir, 'data.txt')), 'the data is kept before the deadline');
    await waitFor(async () => (await r.api.volume(name)) === undefined, 'the PV to be deleted at its deadline');
    assert.ok(Date.now() >= deadline.getTime(), 'not deleted before its deadline');
    assert.equal(await exists(dir), false, 'the directory went with it (as policy Delete deletes)');
    const seen = await reasons(r, name);
    assert.ok(seen.includes('ReleasedDeadlineSet') && seen.includes('ReleasedTTLExpired'), `events: ${seen.join(', ')}`);
  });
});

test('the deadline survives a controller restart: the restarted controller neither moves it nor forgets it', async () => {
  await withRig(async (r) => {
    await ttlClass(r, 'hp-ttl', '6s');
    const pv = await boundVolume(r, 'data', 'hp-ttl');
    const name = pv.metadata.name!;
    await r.api.deleteClaim('data');
    const first = await deadlineOf(r, name);
    await r.cluster.stopController();
    const stopped = await r.api.volume(name);
    assert.equal(stopped?.metadata.annotations?.[ANN_RELEASED_DEADLINE], first.pv.metadata.annotations?.[ANN_RELEASED_DEADLINE]);
    const controller = await r.cluster.startController();
    await volumeSyncsPass(controller, 2);
    const after = await r.api.volume(name);
    if (after) assert.equal(after.metadata.annotations?.[ANN_RELEASED_DEADLINE], first.pv.metadata.annotations?.[ANN_RELEASED_DEADLINE], 'the same deadline');
    await waitFor(async () => (await r.api.volume(name)) === undefined, 'the PV to be deleted by the restarted controller');
    assert.ok(Date.now() >= first.deadline.getTime(), 'not before the deadline written before the restart');
    assert.equal(await exists(pv.spec.hostPath!.path), false);
  });
});

test('a forged TTL deletes nothing pv-controller did not make for that PV: another namespace’s volume, an unrecorded directory, a path outside the root', async () => {
  const outside = await decoy();
  try {
    await withRig(async (r) => {
      await ttlClass(r, 'hp-keep', undefined);
      await r.api.createNamespace('other');
      const victim = await boundVolume(r, 'victim', 'hp-keep', 'other');
      const victimDir = victim.spec.hostPath!.path;
      await fill(victimDir);
      const innocent = join(r.cluster.hostPathRoot, 'innocent');
      await mkdir(innocent);
      await writeFile(join(innocent, 'data.txt'), 'keep');
      const past = new Date(Date.now() - 3_600_000).toISOString();
      const forged: Array<[string, string]> = [
        ['forged-victim', victimDir],
        ['forged-innocent', innocent],
        ['forged-outside', outside.dir],
      ];
      for (const [name, path] of forged) {
        const pv = staticVolume(name, path, 'Retain', { releasedFrom: 'gone', provisionedBy: HOST_PATH_PROVISIONER });
        pv.metadata.annotations = { ...pv.metadata.annotations, [ANN_RELEASED_TTL]: '1s', [ANN_RELEASED_DEADLINE]: past };
        await r.api.createVolume(pv);
      }
      for (const [name] of forged) {
        const refusal = await waitFor(async () => (await r.api.events(name)).find((e) => e.reason === 'ReleasedTTLRefused'), `${name}: a ReleasedTTLRefused Warning`);
        assert.equal(refusal.type, 'Warning');
        assert.match(String(refusal.message), /cannot prove that pv-controller provisioned this volume: it is kept/);
      }
      await volumeSyncsPass(r.cluster.controller!, 10);
      for (const [name] of forged) {
        const pv = await r.api.volume(name);
        assert.equal(pv?.status?.phase, 'Released', `${name} is kept, Released`);
        assert.equal(pv?.metadata.annotations?.['pv-controller.io/reclaim-failed-attempts'], undefined, `${name}: no delete was even attempted`);
      }
      assert.ok(await exists(join(victimDir, 'data.txt')), "the other namespace's volume is untouched");
      assert.equal((await r.api.claim('victim', 'other'))?.status?.phase, 'Bound', 'and still Bound');
      assert.ok(await exists(join(innocent, 'data.txt')), 'the unrecorded directory in the root is untouched');
      assert.ok(await exists(outside.file), 'the decoy outside the root is untouched');
    });
  } finally {
    await rm(outside.dir, { recursive: true, force: true });
  }
});

test('an invalid TTL is a Warning and deletes nothing; no deadline is written', async () => {
  await withRig(async (r) => {
    const dir = join(r.cluster.hostPathRoot, 'static');
    await mkdir(dir);
    const pv = staticVolume('bad-ttl', dir, 'Retain', { releasedFrom: 'gone' });
    pv.metadata.annotations = { [ANN_RELEASED_TTL]: 'three days' };
    await r.api.createVolume(pv);
    const warning = await waitFor(async () => (await r.api.events('bad-ttl')).find((e) => e.reason === 'ReleasedTTLInvalid'), 'a ReleasedTTLInvalid Warning');
    assert.equal(warning.type, 'Warning');
    assert.match(String(warning.message), /"three days" is not a Go duration/);
    const kept = await r.api.volume('bad-ttl');
    assert.equal(kept?.status?.phase, 'Released');
    assert.equal(kept?.metadata.annotations?.[ANN_RELEASED_DEADLINE], undefined);
    assert.ok(await exists(dir));
  });
});
