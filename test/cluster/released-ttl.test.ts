/**
 * Released-volume TTL, archive on delete and reuse on the real control plane: kube-apiserver (with
 * kube-controller-manager running only its protection controllers) and our controller with the
 * host-path plugin on a temp root. The TTL copied from the class becomes a deadline on the
 * Released PV, and at it the volume is archived and the PV deleted; a second volume is made
 * Available again with pv-controller.io/reuse; a forged TTL on a hand-made PV deletes nothing.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ANN_ARCHIVE_RETENTION, ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL, ANN_REUSE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { HOST_PATH_PROVISIONER, HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { testControllerOptions } from '../helpers/cluster.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { waitFor } from '../helpers/wait.js';
import { TestApi } from '../integration/provisioning-helpers.js';
import { ReclaimApi, claimFor, exists, staticVolume } from '../integration/reclaim-helpers.js';

const skip = realControlPlaneSkip();
const KCM_CONTROLLERS = ['persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller'];

test('real control plane: a class TTL deletes (archives) a Released volume at the deadline on the PV; reuse makes one Available; a forged TTL deletes nothing', { skip }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'pvc-ttl-cluster-'));
  const plane = await startTestControlPlane();
  const classes = new TestApi(plane.admin());
  const api = new ReclaimApi(plane.admin());
  try {
    await plane.startControllerManager({ controllers: KCM_CONTROLLERS });
    const options = testControllerOptions(plane.controllerKubeconfigPath ?? plane.kubeconfigPath, root, {
      metricsBindAddress: '0',
      syncPeriodMs: 500,
      controllers: ['binder', 'provisioner', 'reclaimer'],
    });
    const controller = await startController(options, {
      plugins: new PluginRegistry([new HostPathPlugin({ roots: [root] })]),
      modules: defaultModules(),
      logger: pino({ level: process.env.PV_TEST_LOG ?? 'silent' }),
    });
    try {
      const ttlClass = (name: string, ttl: string) => classes.createClass({
        metadata: { name, annotations: { [ANN_RELEASED_TTL]: ttl, [ANN_ARCHIVE_RETENTION]: '1h' } },
        provisioner: HOST_PATH_PROVISIONER,
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'Immediate',
        parameters: { onDelete: 'archive' },
      });
      await ttlClass('short', '2s');
      await ttlClass('long', '1h');
      const bound = async (claimName: string, cls: string): Promise<PersistentVolume> => {
        const claim = claimFor(claimName);
        await api.createClaim({ ...claim, spec: { ...claim.spec, storageClassName: cls } });
        const c = await waitFor(async () => ((await api.claim(claimName))?.status?.phase === 'Bound' ? api.claim(claimName) : undefined), `${claimName} Bound`);
        return (await api.volume(c!.spec.volumeName!))!;
      };
      const short = await bound('short', 'short');
      const long = await bound('long', 'long');
      assert.equal(short.metadata.annotations?.[ANN_RELEASED_TTL], '2s');
      await writeFile(join(short.spec.hostPath!.path, 'data.txt'), 'short');
      await writeFile(join(long.spec.hostPath!.path, 'data.txt'), 'long');
      const forgedDir = join(root, 'hand-made');
      await mkdir(forgedDir);
      await writeFile(join(forgedDir, 'data.txt'), 'keep');
      const forged = staticVolume('forged', forgedDir, 'Retain', { releasedFrom: 'gone', provisionedBy: HOST_PATH_PROVISIONER });
      forged.metadata.annotations = { ...forged.metadata.annotations, [ANN_RELEASED_TTL]: '1s' };
      await api.createVolume(forged);

      await api.deleteClaim('short');
      await api.deleteClaim('long');
      const deadline = await waitFor(async () => (await api.volume(short.metadata.name!))?.metadata.annotations?.[ANN_RELEASED_DEADLINE], 'the deadline on the short PV');
      await waitFor(async () => (await api.volume(short.metadata.name!)) === undefined, 'the short PV deleted at its deadline');
      assert.ok(Date.now() >= new Date(deadline).getTime());
      const archives = await readdir(join(root, '.pv-controller-archive'));
      assert.equal(archives.filter((n) => n.startsWith(short.spec.hostPath!.path.split('/').pop()!)).length, 1, 'archived, not deleted');

      await waitFor(async () => {
        const pv = await api.volume(long.metadata.name!);
        return pv?.metadata.annotations?.[ANN_RELEASED_DEADLINE] ? pv : undefined;
      }, 'the long PV Released with a deadline');
      await api.modifyVolume(long.metadata.name!, (pv) => ({ ...pv, metadata: { ...pv.metadata, annotations: { ...pv.metadata.annotations, [ANN_REUSE]: 'true' } } }));
      const free = await waitFor(async () => {
        const pv = await api.volume(long.metadata.name!);
        return pv?.status?.phase === 'Available' ? pv : undefined;
      }, 'the long PV Available again');
      assert.equal(free.spec.claimRef, undefined);
      assert.equal(free.metadata.annotations?.[ANN_RELEASED_DEADLINE], undefined);
      assert.ok(await exists(join(long.spec.hostPath!.path, 'data.txt')));

      await waitFor(async () => (await api.events('forged')).some((e) => e.reason === 'ReleasedTTLRefused'), 'the forged TTL refused');
      assert.equal((await api.volume('forged'))?.status?.phase, 'Released');
      assert.ok(await exists(join(forgedDir, 'data.txt')), 'the hand-made directory is untouched');
    } finally {
      await controller.stop();
    }
  } finally {
    api.close();
    classes.close();
    await plane.stop();
    await plane.removeDir();
    await rm(root, { recursive: true, force: true });
  }
});
