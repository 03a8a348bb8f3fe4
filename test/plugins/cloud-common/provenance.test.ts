/**
 * The cloud plugins' provenance (cloud-common/proof.ts), what a Released volume's time to live
 * relies on before it deletes a disk: on the EC2, GCE and OpenStack emulators, a disk carrying
 * cluster prod-a's tags for exactly this PV's name, under the name we give it, is proven for
 * prod-a only; the same disk named by a PV of another name, a disk of another cluster, an
 * untagged disk or one with only the cluster tag, a PV of another plugin and a disk that is gone
 * are not.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import { backingName } from '../../../src/plugins/naming.js';
import type { CloudVolumePlugin } from '../../../src/plugins/cloud-common/cloud-volume-plugin.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { GceEmulator } from '../../emulators/gce.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';
import { awsPlugin, cinderPlugin, gcePlugin } from '../../integration/cloud-helpers.js';
import { awsCloud, cinderCloud, gceCloud, HOUR, type MixedCloud, volumeTagsOf } from '../cloud-sweep/mixed-clouds.js';

interface World {
  cloud: MixedCloud;
  plugin: CloudVolumePlugin<unknown, unknown>;
  /** A PV of this plugin naming the volume `id` (named `name` in the cloud). */
  pv(pvName: string, id: string, name: string): PersistentVolume;
}

const meta = (name: string, labels?: Record<string, string>): PersistentVolume['metadata'] => ({ name, ...(labels ? { labels } : {}) });
const spec = (source: Partial<PersistentVolume['spec']>): PersistentVolume['spec'] => ({ capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], ...source });

const WORLDS: Record<string, () => Promise<World>> = {
  aws: async () => {
    const ec2 = new Ec2Emulator();
    await ec2.start();
    return { cloud: awsCloud(ec2), plugin: awsPlugin(ec2) as never, pv: (n, id) => ({ metadata: meta(n), spec: spec({ awsElasticBlockStore: { volumeID: id } }) }) };
  },
  gce: async () => {
    const gce = new GceEmulator();
    await gce.start();
    const zone = gce.zones[0];
    return { cloud: gceCloud(gce), plugin: gcePlugin(gce) as never, pv: (n, _id, name) => ({ metadata: meta(n, { [LABEL_TOPOLOGY_ZONE]: zone }), spec: spec({ gcePersistentDisk: { pdName: name } }) }) };
  },
  cinder: async () => {
    const os = new OpenStackEmulator();
    await os.start();
    return { cloud: cinderCloud(os), plugin: cinderPlugin(os) as never, pv: (n, id) => ({ metadata: meta(n), spec: spec({ cinder: { volumeID: id } }) }) };
  },
};

for (const [cloudName, makeWorld] of Object.entries(WORLDS)) {
  describe(`${cloudName}: a disk is proven ours only by its own tags, for its own PV and cluster`, () => {
    let world: World | undefined;
    after(async () => {
      await world?.cloud.stop();
    });

    test('proven for its PV and cluster; refused for another PV name, another cluster, forged or missing tags, a foreign PV and a gone disk', async () => {
      world = await makeWorld();
      const { cloud, plugin } = world;
      const limit = plugin.maxBackingNameLength;
      const add = (cluster: string, pvName: string, tags: Record<string, string>): { id: string; name: string } => {
        const name = backingName(cluster, pvName, limit);
        return { id: cloud.addVolume(name, tags, 2 * HOUR), name };
      };
      const ours = add('prod-a', 'pvc-1111', volumeTagsOf('prod-a', 'pvc-1111'));
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-1111', ours.id, ours.name), 'prod-a'), true, 'our disk for our PV');
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-2222', ours.id, ours.name), 'prod-a'), false, 'the same disk named by another PV');
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-1111', ours.id, ours.name), 'prod-b'), false, 'asked as another cluster');

      const theirs = add('prod-b', 'pvc-3333', volumeTagsOf('prod-b', 'pvc-3333'));
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-3333', theirs.id, theirs.name), 'prod-a'), false, 'another cluster\'s disk under a PV of its name');

      const clusterOnly = add('prod-a', 'pvc-4444', { 'kubernetes.io/cluster/prod-a': 'owned' });
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-4444', clusterOnly.id, clusterOnly.name), 'prod-a'), false, 'only the cluster tag');

      const both = add('prod-a', 'pvc-5555', { ...volumeTagsOf('prod-a', 'pvc-5555'), 'kubernetes.io/cluster/prod-b': 'owned' });
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-5555', both.id, both.name), 'prod-a'), false, 'tagged for two clusters');

      const untagged = add('prod-a', 'pvc-6666', {});
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-6666', untagged.id, untagged.name), 'prod-a'), false, 'untagged');

      const foreign: PersistentVolume = { metadata: meta('pvc-1111'), spec: spec({ hostPath: { path: '/srv/x' } }) };
      assert.equal(await plugin.provesProvisioned(foreign, 'prod-a'), false, 'a PV of another plugin');

      await cloud.sweeper.deleteVolume(ours.id);
      assert.equal(await plugin.provesProvisioned(world.pv('pvc-1111', ours.id, ours.name), 'prod-a'), false, 'a disk that is gone');
    });
  });
}
