import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import type { ProvisionedVolume } from '../../../src/plugins/api/core.js';
import { conformanceRequest } from '../conformance/subject.js';

const DISK = 'example.com/disk';

function pvOf(name: string, volume: ProvisionedVolume): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': NODE_HOST_PATH_PROVISIONER } },
    spec: { ...volume.source, capacity: { storage: volume.capacity }, ...(volume.nodeAffinity ? { nodeAffinity: volume.nodeAffinity } : {}) },
  } as PersistentVolume;
}

describe('node agents pin local PVs by the label the admin chooses', () => {
  let base: string;
  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-pin-')));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  const agent = async (node: string, labels: Record<string, string>, nodeAffinityLabel?: string): Promise<{ plugin: HostPathPlugin; root: string }> => {
    const root = await fs.mkdtemp(join(base, `${node}-`));
    const plugin = new HostPathPlugin({
      roots: [root],
      nodeName: node,
      provisionerName: NODE_HOST_PATH_PROVISIONER,
      nodeLabels: { 'kubernetes.io/hostname': node, ...labels },
      ...(nodeAffinityLabel ? { nodeAffinityLabel } : {}),
    });
    return { plugin, root };
  };

  test('by default a PV is pinned by kubernetes.io/hostname; with --node-affinity-label by that label and this node\'s value', async () => {
    const plain = await agent('n1', { [DISK]: 'd1' });
    const byHost = await plain.plugin.provision(conformanceRequest(plain.plugin, { selectedNode: 'n1' }));
    assert.deepEqual(byHost.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }]);
    const byDisk = await plain.plugin.provision(conformanceRequest(plain.plugin, { selectedNode: 'n1', parameters: { nodeAffinityLabel: DISK } }));
    assert.deepEqual(byDisk.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: DISK, operator: 'In', values: ['d1'] }] }]);
    const flagged = await agent('n1', { [DISK]: 'd1' }, DISK);
    const byFlag = await flagged.plugin.provision(conformanceRequest(flagged.plugin, { selectedNode: 'n1' }));
    assert.deepEqual(byFlag.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, ['d1']);
  });

  test('a node without the label refuses (retryably, naming it) before anything is made', async () => {
    const { plugin, root } = await agent('n1', {});
    await assert.rejects(plugin.provision(conformanceRequest(plugin, { selectedNode: 'n1', parameters: { nodeAffinityLabel: DISK } })), (err: Error & { retryable?: boolean }) =>
      err.retryable === true && /node "n1" has no label "example.com\/disk"/.test(err.message));
    assert.deepEqual((await fs.readdir(root)).filter((n) => !n.startsWith('.')), []);
  });

  test('a replacement node carrying the label serves the volume; a node carrying it without the volume refuses to delete it and touches nothing', async () => {
    const old = await agent('old', { [DISK]: 'd1' }, DISK);
    const req = conformanceRequest(old.plugin, { selectedNode: 'old' });
    const pv = pvOf(req.pvName, await old.plugin.provision(req));
    const dir = pv.spec.local!.path;
    await fs.writeFile(join(dir, 'data'), 'kept');

    // The disk moves to a new node with the same root path and label: its agent handles the PV and deletes it.
    const replacement = new HostPathPlugin({ roots: [old.root], nodeName: 'new', provisionerName: NODE_HOST_PATH_PROVISIONER, nodeLabels: { [DISK]: 'd1' }, nodeAffinityLabel: DISK });
    // Another node with the same label value but not the disk.
    const other = await agent('other', { [DISK]: 'd1' }, DISK);
    const elsewhere = await agent('elsewhere', { [DISK]: 'd2' }, DISK);
    assert.equal(replacement.handles(pv), true);
    assert.equal(other.plugin.handles(pv), true, 'the label is all it can see');
    assert.equal(elsewhere.plugin.handles(pv), false, 'another value is another disk');

    await assert.rejects(other.plugin.delete({ backingName: req.backingName, pv }), (err: Error & { retryable?: boolean }) =>
      err.retryable === true && /not on this node's roots: left to the node that holds it/.test(err.message));
    await assert.rejects(other.plugin.recycle(pv), /not on this node's roots/);
    assert.equal(await fs.readFile(join(dir, 'data'), 'utf8'), 'kept');

    await replacement.delete({ backingName: req.backingName, pv });
    await assert.rejects(fs.stat(dir), /ENOENT/);
  });

  test('a label key that is not one is refused: class parameter and agent option', async () => {
    const { plugin } = await agent('n1', {});
    assert.equal(plugin.validateParameters({ nodeAffinityLabel: 'not a key!' })[0]?.parameter, 'nodeAffinityLabel');
    assert.deepEqual(plugin.validateParameters({ nodeAffinityLabel: 'topology.kubernetes.io/zone' }), []);
    assert.throws(() => new HostPathPlugin({ roots: [base], nodeName: 'n1', nodeAffinityLabel: '/bad' }), /node affinity label/);
  });
});
