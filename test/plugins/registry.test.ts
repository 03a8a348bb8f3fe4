import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../src/metrics/nil.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { canRecycle } from '../../src/plugins/api/capabilities/recycle.js';

/** A plugin that recognises PVs it provisioned (the annotation names it) and those whose hostPath starts with `prefix`. */
function fakePlugin(name: string, prefix: string): VolumePlugin {
  return {
    name,
    maxBackingNameLength: 63,
    validateParameters: () => [],
    handles: (pv) => pv.metadata.annotations?.[ANN_PROVISIONED_BY] === name || (pv.spec.hostPath?.path.startsWith(prefix) ?? false),
    provision: () => Promise.reject(new Error('not used')),
    delete: () => Promise.resolve(),
    metricsFor: () => new NilMetricsProvider(name),
  };
}

function pv(path: string, provisionedBy?: string): PersistentVolume {
  return {
    metadata: { name: 'pv1', ...(provisionedBy ? { annotations: { [ANN_PROVISIONED_BY]: provisionedBy } } : {}) },
    spec: { hostPath: { path } },
  };
}

const a = fakePlugin('kubernetes.io/a', '/a/');
const b = fakePlugin('example.com/b', '/b/');

test('plugins are found by provisioner name and listed in registration order', () => {
  const registry = new PluginRegistry([a, b]);
  assert.equal(registry.byProvisioner('kubernetes.io/a'), a);
  assert.equal(registry.byProvisioner('example.com/b'), b);
  assert.equal(registry.byProvisioner('kubernetes.io/none'), undefined);
  assert.deepEqual(registry.all(), [a, b]);
});

test('registering two plugins with one provisioner name is refused', () => {
  const registry = new PluginRegistry([a]);
  assert.throws(() => registry.register(fakePlugin('kubernetes.io/a', '/x/')), /already registered/);
});

test('the provisioned-by annotation picks the plugin before the volume source does', () => {
  const registry = new PluginRegistry([a, b]);
  assert.equal(registry.forVolume(pv('/a/vol', 'example.com/b')), b);
});

test('a PV of an external provisioner we do not run gets no plugin, even if a source matches', () => {
  const registry = new PluginRegistry([a, b]);
  assert.equal(registry.forVolume(pv('/a/vol', 'csi.example.com')), undefined);
});

test('an unknown in-tree provisioner or no annotation falls back to handles()', () => {
  const registry = new PluginRegistry([a, b]);
  assert.equal(registry.forVolume(pv('/b/vol', 'kubernetes.io/legacy')), b);
  assert.equal(registry.forVolume(pv('/a/vol')), a);
  assert.equal(registry.forVolume(pv('/c/vol')), undefined);
});

/** A `local` PV of the node agents' provisioner, under /var/lib/volumes, pinned to `node`. */
function nodeLocalVolume(node: string): PersistentVolume {
  return {
    metadata: { name: `pv-on-${node}`, annotations: { [ANN_PROVISIONED_BY]: NODE_HOST_PATH_PROVISIONER } },
    spec: {
      local: { path: '/var/lib/volumes/kubernetes-dynamic-pvc-1' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [node] }] }] } },
    },
  };
}

test('the plugin the annotation names still has the last word: a node agent gets no plugin for another node\'s volume at the same path', () => {
  const agent = new HostPathPlugin({ roots: ['/var/lib/volumes'], nodeName: 'n1', provisionerName: NODE_HOST_PATH_PROVISIONER });
  const registry = new PluginRegistry([agent]);
  assert.equal(registry.forVolume(nodeLocalVolume('n1')), agent);
  assert.equal(registry.forVolume(nodeLocalVolume('n2')), undefined, 'n1\'s agent would delete, recycle and measure n2\'s volume on its own disk');
});

test('plugins are found by capability: withCapability lists those whose guard passes, forVolume with a guard only the owner that has it', () => {
  const recycler = { ...fakePlugin('kubernetes.io/r', '/r/'), recycle: () => Promise.resolve() };
  const registry = new PluginRegistry([a, recycler, b]);
  assert.deepEqual(registry.withCapability(canRecycle), [recycler]);
  assert.equal(registry.forVolume(pv('/r/vol'), canRecycle), recycler);
  // The owner decides; another plugin that has the capability is never picked instead.
  assert.equal(registry.forVolume(pv('/a/vol'), canRecycle), undefined);
  assert.equal(registry.forVolume(pv('/a/vol')), a);
});

test('CSI migration: a migrated in-tree class is served by our in-tree plugin when registered, else by the CSI driver it migrated to', () => {
  const ebsInTree = fakePlugin('kubernetes.io/aws-ebs', '/ebs/');
  const ebsCsi = fakePlugin('ebs.csi.aws.com', '/csi/');
  assert.equal(new PluginRegistry([ebsInTree]).byProvisioner('kubernetes.io/aws-ebs'), ebsInTree);
  const csiOnly = new PluginRegistry([ebsCsi]);
  assert.equal(csiOnly.byProvisioner('kubernetes.io/aws-ebs'), ebsCsi);
  assert.equal(csiOnly.byProvisioner('ebs.csi.aws.com'), ebsCsi);
  // Not migrated, or migrated to another driver: nobody here.
  assert.equal(csiOnly.byProvisioner('kubernetes.io/gce-pd'), undefined);
  assert.equal(csiOnly.byProvisioner('kubernetes.io/host-path'), undefined);
});

test('CSI migration: an in-tree plugin and the CSI driver it migrated to are never both registered (two provisioners for one class)', () => {
  const ebsInTree = fakePlugin('kubernetes.io/aws-ebs', '/ebs/');
  const ebsCsi = fakePlugin('ebs.csi.aws.com', '/csi/');
  assert.throws(() => new PluginRegistry([ebsInTree, ebsCsi]), /both the in-tree volume plugin "kubernetes.io\/aws-ebs" and the CSI driver "ebs.csi.aws.com"/);
  assert.throws(() => new PluginRegistry([ebsCsi, ebsInTree]), /both the in-tree volume plugin "kubernetes.io\/aws-ebs" and the CSI driver "ebs.csi.aws.com"/);
  // Another cloud's driver beside it is fine.
  assert.doesNotThrow(() => new PluginRegistry([ebsInTree, fakePlugin('pd.csi.storage.gke.io', '/pd/')]));
});
