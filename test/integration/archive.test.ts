/**
 * Archive on delete end to end (docs/lifecycle.md): a host-path class with `onDelete: archive`
 * and `pv-controller.io/archive-retention`, its volume deleted by a Released-volume TTL; the
 * controller's sweeper then deletes the archive, and nothing else in the archive area.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_ARCHIVE_RETENTION, ANN_RELEASED_TTL } from '@pv-controller/kube/annotations.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { canListBackingVolumes } from '../../src/plugins/api/capabilities/backing-volumes.js';
import { startTestCluster } from '../helpers/cluster.js';
import { TestApi } from './provisioning-helpers.js';
import { ReclaimApi, claimFor, decoy, exists, fill, reclaimModules, waitFor } from './reclaim-helpers.js';

test('a TTL-expired volume of an archiving class is moved into the archive area, and swept once its retention ends; foreign entries stay', async () => {
  const outside = await decoy();
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const classes = new TestApi(cluster.kc);
  const area = join(cluster.hostPathRoot, '.pv-controller-archive');
  try {
    await mkdir(join(area, 'handmade'), { recursive: true });
    await symlink(outside.dir, join(area, 'kubernetes-dynamic-pvc-x.expires-20000101T000000Z'));
    await classes.createClass({
      metadata: { name: 'archiving', annotations: { [ANN_RELEASED_TTL]: '1s', [ANN_ARCHIVE_RETENTION]: '5s' } },
      provisioner: HOST_PATH_PROVISIONER,
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'Immediate',
      parameters: { onDelete: 'archive' },
    });
    const claim = claimFor('data');
    await api.createClaim({ ...claim, spec: { ...claim.spec, storageClassName: 'archiving' } });
    const bound = await waitFor(async () => {
      const c = await api.claim('data');
      return c?.status?.phase === 'Bound' ? c : undefined;
    }, 'the claim to be Bound');
    const pv = (await api.volume(bound.spec.volumeName!))!;
    const dir = pv.spec.hostPath!.path;
    await fill(dir);
    await api.deleteClaim('data');
    await waitFor(async () => (await api.volume(pv.metadata.name!)) === undefined, 'the PV deleted by its TTL');
    assert.equal(await exists(dir), false, 'the volume directory is gone from its place');
    const backing = dir.split('/').pop()!;
    const archived = (await readdir(area)).find((n) => n.startsWith(`${backing}.expires-`));
    assert.ok(archived, 'archived (retention 5 s: not swept yet)');
    assert.equal(await readFile(join(area, archived, 'data.txt'), 'utf8'), 'user data', 'the data is in the archive');
    await waitFor(async () => !(await readdir(area)).some((n) => n.startsWith(backing)), 'the sweeper to delete the archive after its retention');
    assert.deepEqual((await readdir(area)).sort(), ['handmade', 'kubernetes-dynamic-pvc-x.expires-20000101T000000Z'], 'entries it did not make stay');
    assert.ok(await exists(outside.file), 'an expired-looking symlink is not followed');
    const plugin = cluster.plugins.byProvisioner(HOST_PATH_PROVISIONER)!;
    assert.ok(canListBackingVolumes(plugin));
    assert.deepEqual(await plugin.listBackingVolumes('kubernetes'), [], 'the archive area is never reported as a volume (orphans)');
  } finally {
    api.close();
    classes.close();
    await cluster.stop();
    await rm(outside.dir, { recursive: true, force: true });
  }
});
