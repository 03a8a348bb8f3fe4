/**
 * Hostile PVs through the embedded API server, the controller and the real host-path plugin:
 * paths outside the root, `..`, a symlink out of the root and the root itself are refused with a
 * Warning and end Failed, and the decoys they point at (temp dirs, never the machine's `/` or
 * `/etc`, which are only ever refused lexically before any filesystem call) are untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_RECLAIM_FAILED_ATTEMPTS } from '@pv-controller/kube/annotations.js';
import { statusOf } from '@pv-controller/kube/errors.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { NFS_SUBDIR_PROVISIONER, NfsSubdirPlugin } from '../../src/plugins/nfs-subdir/index.js';
import { startTestCluster } from '../helpers/cluster.js';
import { ReclaimApi, decoy, exists, reclaimModules, staticVolume, waitFor } from './reclaim-helpers.js';

test('hostile host-path PVs are never deleted or scrubbed: refused with a Warning, Failed, decoys intact', async () => {
  const outside = await decoy();
  const nfsMount = join(outside.dir, 'nfs-mount');
  await mkdir(nfsMount);
  const nfs = new NfsSubdirPlugin({ mounts: [{ server: 'nfs.test', share: '/exports', mountPath: nfsMount }] });
  const cluster = await startTestCluster({ plugins: [nfs], modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const root = cluster.hostPathRoot;
  const sibling = join(root, '..', 'sibling');
  try {
    await assert.rejects(
      api.createVolume(staticVolume('dotdot', `${root}/../sibling`, 'Delete', { releasedFrom: 'gone' })),
      (err: unknown) => statusOf(err).code === 422,
      'the API server itself refuses a hostPath with ".." (as kube-apiserver does)',
    );
    const nfsDotdot = staticVolume('nfs-dotdot', '/unused', 'Delete', { releasedFrom: 'gone', provisionedBy: NFS_SUBDIR_PROVISIONER });
    delete nfsDotdot.spec.hostPath;
    nfsDotdot.spec.nfs = { server: 'nfs.test', path: '/exports/../precious.txt' };
    await api.createVolume(nfsDotdot);
    await mkdir(sibling);
    await writeFile(join(sibling, 'precious.txt'), 'keep');
    await symlink(outside.dir, join(root, 'link-out'));
    await mkdir(join(root, 'innocent'));
    await writeFile(join(root, 'innocent', 'data.txt'), 'keep');
    const hostile: Array<[string, string, string]> = [
      ['fs-root', '/', 'Delete'],
      ['etc', '/etc', 'Delete'],
      ['symlink-out', join(root, 'link-out'), 'Delete'],
      ['symlink-recycle', join(root, 'link-out'), 'Recycle'],
      ['the-root', root, 'Delete'],
      ['the-root-recycle', root, 'Recycle'],
    ];
    for (const [name, path, policy] of hostile) {
      await api.createVolume(staticVolume(name, path, policy, { releasedFrom: 'gone', provisionedBy: HOST_PATH_PROVISIONER }));
    }
    await api.createVolume(staticVolume('static-etc', '/etc', 'Delete', { releasedFrom: 'gone' }));
    for (const name of [...hostile.map(([n]) => n), 'static-etc', 'nfs-dotdot']) {
      const pv = await waitFor(async () => {
        const v = await api.volume(name);
        return v?.status?.phase === 'Failed' ? v : undefined;
      }, `${name} to be Failed`);
      assert.equal(pv.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS], '1', `${name}: the refusal counts as one attempt`);
      const warning = await waitFor(async () => (await api.events(name)).find((e) => e.type === 'Warning'), `${name}: a Warning event`);
      assert.match(String(warning.reason), /^VolumeFailed(Delete|Recycle)$/);
      // A PV no plugin owns: the message names its path and the roots it is outside of.
      assert.match(String(warning.message), name === 'static-etc' ? /no volume plugin matched \(hostPath "\/etc" is outside every host-path root \(\// : /refusing/);
    }
    assert.ok(await exists(outside.file), 'the symlink target outside the root is untouched');
    assert.ok(await exists(join(sibling, 'precious.txt')), 'the sibling of the root is untouched');
    assert.ok(await exists(join(root, 'link-out')), 'the symlink itself was not removed either');
    assert.ok(await exists(join(root, 'innocent', 'data.txt')), 'nothing inside the root was touched');
  } finally {
    api.close();
    await cluster.stop();
    await rm(outside.dir, { recursive: true, force: true });
    await rm(sibling, { recursive: true, force: true });
  }
});
