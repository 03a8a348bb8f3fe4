/**
 * Node gone end to end: the embedded API server, the default modules, and a host-path plugin
 * serving node "node-a" (a controller run with --node-name), whose Node object the test creates
 * and deletes. After the delay the claim is re-created for a new node, the PV object goes, and
 * the volume's directory (its data) is still on disk: nothing reached for the gone node's data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../../src/kube-client/paths.js';
import type { Node, PersistentVolumeClaim } from '../../src/kube/types.js';
import { HostPathPlugin, HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/objects.js';
import { TestApi } from './provisioning-helpers.js';

const NODE = 'node-a';

class NodeApi extends TestApi {
  createNode(name: string): Promise<Node> {
    return this.create(paths.nodes(), 'v1', 'Node', { metadata: { name } });
  }

  deleteNode(name: string): Promise<void> {
    return this.remove(paths.node(name));
  }
}

function claim(name: string): PersistentVolumeClaim {
  return {
    metadata: { namespace: 'default', name, labels: { app: 'db' } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } }, storageClassName: 'local' },
  };
}

test('a deleted node releases its volume after the delay: the claim is re-created, the PV goes, the data stays on disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'pvc-node-gone-'));
  const cluster = await startTestCluster({
    noHostPath: true,
    plugins: [new HostPathPlugin({ roots: [root], nodeName: NODE })],
    controllerOptions: { nodeGoneDelayMs: 1500 },
  });
  const api = new NodeApi(cluster.kc);
  try {
    await api.createNode(NODE);
    await api.createClass({ metadata: { name: 'local' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const original = await api.createClaim(claim('data'));
    const bound = await waitFor(async () => {
      const c = await api.claim('default', 'data');
      return c?.status?.phase === 'Bound' ? c : undefined;
    }, 'the claim to be Bound');
    const pvName = bound.spec.volumeName ?? '';
    const dir = (await api.volume(pvName))?.spec.local?.path ?? '';
    await writeFile(join(dir, 'data.txt'), 'kept');

    await api.deleteNode(NODE);
    // The new claim provisions again (this plugin serves node-a only, whatever the API says of it).
    const replaced = await waitFor(async () => {
      const c = await api.claim('default', 'data');
      return c && c.metadata.uid !== original.metadata.uid && c.status?.phase === 'Bound' ? c : undefined;
    }, 'the claim to be re-created and bound');
    await waitFor(async () => ((await api.volume(pvName)) === undefined ? true : undefined), 'the old PV to be gone');

    assert.deepEqual(replaced.metadata.labels, { app: 'db' });
    assert.notEqual(replaced.spec.volumeName, pvName);
    assert.equal(await readFile(join(dir, 'data.txt'), 'utf8'), 'kept', 'the data stays where it was');
    const claimEvents = await api.eventsRecorded('default', 'data', ['NodeGoneClaimRecreated']);
    assert.ok(claimEvents.includes('ReferencedNodeDeleted'));
    const pvEvents = await api.eventsRecorded('default', pvName, ['NodeGoneVolumeDeleted']);
    assert.ok(!pvEvents.includes('VolumeFailedDelete'), 'no reclaim was tried');
  } finally {
    api.close();
    await cluster.stop();
    await rm(root, { recursive: true, force: true });
  }
});
