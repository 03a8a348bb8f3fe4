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
import type { Node, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_NODE_GONE_CLAIM, ANN_NODE_GONE_SINCE, ANN_PROVISIONED_BY, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { HostPathPlugin, HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/objects.js';
import { TestApi } from './provisioning-helpers.js';

const NODE = 'node-a';

class NodeApi extends TestApi {
  createVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.create(paths.volumes(), 'v1', 'PersistentVolume', pv);
  }

  createNamespace(name: string): Promise<unknown> {
    return this.create(paths.namespaces(), 'v1', 'Namespace', { metadata: { name } });
  }

  createNode(name: string): Promise<Node> {
    return this.create(paths.nodes(), 'v1', 'Node', { metadata: { name } });
  }

  deleteNode(name: string): Promise<void> {
    return this.remove(paths.node(name));
  }
}

function claim(name: string, namespace = 'default'): PersistentVolumeClaim {
  return {
    metadata: { namespace, name, labels: { app: 'db' } },
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

/** A static PV dressed as one of ours, pinned to `node`, carrying node-gone's old marks as forged by hand. */
function forgedVolume(name: string, node: string, victim: PersistentVolumeClaim, since = '2000-01-01T00:00:00Z'): PersistentVolume {
  const template = { uid: victim.metadata.uid, metadata: { name: victim.metadata.name, namespace: victim.metadata.namespace }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } }, volumeName: name } };
  return {
    metadata: { name, annotations: { [ANN_PROVISIONED_BY]: HOST_PATH_PROVISIONER, [ANN_NODE_GONE_SINCE]: since, [ANN_NODE_GONE_CLAIM]: JSON.stringify(template) } },
    spec: {
      capacity: { storage: '1Mi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'forged',
      hostPath: { path: '/tmp/forged-nothing-here' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [node] }] }] } },
    },
  };
}

test('forged node-gone annotations on a PV delete no claim and no data of another namespace, and create none', async () => {
  const root = await mkdtemp(join(tmpdir(), 'pvc-node-gone-forged-'));
  const cluster = await startTestCluster({
    noHostPath: true,
    plugins: [new HostPathPlugin({ roots: [root], nodeName: NODE })],
    controllerOptions: { nodeGoneDelayMs: 500 },
  });
  const api = new NodeApi(cluster.kc);
  try {
    await api.createNode(NODE);
    await api.createNamespace('victim');
    await api.createClass({ metadata: { name: 'local' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    await api.createClaim(claim('db', 'victim'));
    const victim = await waitFor(async () => {
      const c = await api.claim('victim', 'db');
      return c?.status?.phase === 'Bound' ? c : undefined;
    }, 'the victim claim to be Bound');
    const dir = (await api.volume(victim.spec.volumeName ?? ''))?.spec.local?.path ?? '';
    await writeFile(join(dir, 'data.txt'), 'precious');

    // A node that never existed, and the healthy node itself (under --node-name): neither PV may
    // make node-gone delete the victim's claim or create one from the forged template.
    await api.createVolume(forgedVolume('pv-forged-absent', 'never-existed', victim));
    await api.createVolume(forgedVolume('pv-forged-healthy', NODE, { ...victim, metadata: { ...victim.metadata, namespace: 'kube-system', name: 'injected' } }));
    for (const name of ['pv-forged-absent', 'pv-forged-healthy']) {
      await waitFor(async () => ((await api.volume(name))?.status?.phase === 'Available' ? true : undefined), `${name} to be synced`);
    }
    // The old code acted on its first sync; give the controller several delays' worth of syncs.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const after = await api.claim('victim', 'db');
    assert.equal(after?.metadata.uid, victim.metadata.uid, 'the victim claim is the same object');
    assert.equal(after?.metadata.deletionTimestamp, undefined);
    assert.equal(await api.claim('kube-system', 'injected'), undefined, 'no claim is created from a forged template');
    assert.equal(await readFile(join(dir, 'data.txt'), 'utf8'), 'precious');
    assert.ok(await api.volume('pv-forged-absent'), 'a node that never existed is never "gone"');
  } finally {
    api.close();
    await cluster.stop();
    await rm(root, { recursive: true, force: true });
  }
});
