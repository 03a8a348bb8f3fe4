/** The pure pieces of a CreateVolume request: parameters, fsType, secrets' templates, access modes, topology, the PV source. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { csiAccessMode, createCapabilities, volumeCapability } from '../../../src/plugins/csi/access.js';
import { createVolumeRequest, provisionedFrom, secretRefsFor, type DriverTraits } from '../../../src/plugins/csi/create-request.js';
import { driverParameters, fsTypeOf, validateCsiParameters } from '../../../src/plugins/csi/parameters.js';
import { resolveTemplate } from '../../../src/plugins/csi/templates.js';
import { accessibilityRequirements, claimSpreadOffset, flattenAllowedTopologies, nodeAffinityOf, type CsiTopologySource } from '../../../src/plugins/csi/topology.js';
import { PluginError } from '../../../src/plugins/api/errors.js';

const traits: DriverTraits = { driver: 'fake.csi.io', singleNodeMultiWriter: false, defaultFsType: '', identity: 'pv-controller-unit-fake.csi.io' };

function request(o: Partial<ProvisionRequest> = {}): ProvisionRequest {
  return {
    backingName: 'unit-dynamic-pvc-1',
    clusterName: 'unit',
    pvName: 'pvc-1',
    claim: { name: 'data', namespace: 'team', uid: '1', labels: {}, annotations: { 'example.com/key': 'team-key' } },
    requestBytes: 1073741824n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: {},
    mountOptions: [],
    ...o,
  };
}

describe('CreateVolume parameters', () => {
  it('strips the csi.storage.k8s.io/ keys the provisioner consumes and adds the claim and PV names', () => {
    const out = driverParameters(
      { type: 'ssd', 'csi.storage.k8s.io/fstype': 'xfs', 'csi.storage.k8s.io/provisioner-secret-name': 's', csiProvisionerSecretName: 'old' },
      { pvcName: 'data', pvcNamespace: 'team', pvName: 'pvc-1' },
    );
    assert.deepEqual(out, {
      type: 'ssd',
      csiProvisionerSecretName: 'old',
      'csi.storage.k8s.io/pvc/name': 'data',
      'csi.storage.k8s.io/pvc/namespace': 'team',
      'csi.storage.k8s.io/pv/name': 'pvc-1',
    });
  });

  it('an unknown key in the reserved csi.storage.k8s.io/ namespace is refused, naming it', () => {
    const problems = validateCsiParameters({ 'csi.storage.k8s.io/no-such-key': 'x', type: 'ssd' });
    assert.deepEqual(problems.map((p) => p.parameter), ['csi.storage.k8s.io/no-such-key']);
  });

  it('fsType comes from csi.storage.k8s.io/fstype, else the deprecated fstype, else the default (empty, as external-provisioner)', () => {
    assert.equal(fsTypeOf({ 'csi.storage.k8s.io/fstype': 'xfs' }, ''), 'xfs');
    assert.equal(fsTypeOf({ FsType: 'ext3' }, ''), 'ext3');
    assert.equal(fsTypeOf({}, ''), '');
    assert.equal(fsTypeOf({}, 'ext4'), 'ext4');
    assert.deepEqual(validateCsiParameters({ fstype: 'a', 'csi.storage.k8s.io/fstype': 'b' }).map((p) => p.parameter), ['csi.storage.k8s.io/fstype']);
  });

  it('secrets named by half a pair, twice, with an unknown token or an invalid name are refused, naming the parameter', () => {
    const p = 'csi.storage.k8s.io/provisioner-secret-name';
    assert.deepEqual(validateCsiParameters({ [p]: 's' }).map((x) => x.parameter), [p]);
    assert.equal(validateCsiParameters({ [p]: 's', csiProvisionerSecretName: 's', 'csi.storage.k8s.io/provisioner-secret-namespace': 'n' }).length, 1);
    assert.match(validateCsiParameters({ [p]: '${pvc.uid}', 'csi.storage.k8s.io/provisioner-secret-namespace': 'n' })[0].message, /unknown token/);
    assert.match(validateCsiParameters({ [p]: 'Not_Valid', 'csi.storage.k8s.io/provisioner-secret-namespace': 'n' })[0].message, /not a valid secret name/);
    // A namespace never takes what the claim's author controls.
    const ns = validateCsiParameters({ [p]: 's', 'csi.storage.k8s.io/provisioner-secret-namespace': '${pvc.name}' });
    assert.equal(ns.length, 1);
    assert.deepEqual(validateCsiParameters({ [p]: '${pvc.name}-${pvc.annotations[\'example.com/key\']}', 'csi.storage.k8s.io/provisioner-secret-namespace': '${pvc.namespace}' }), []);
  });

  it('templates resolve pv.name, pvc.name, pvc.namespace and claim annotations, and refuse a result that is no valid name', () => {
    const ctx = { pvName: 'pvc-1', claim: { name: 'data', namespace: 'team', annotations: { 'example.com/key': 'k1' } } };
    assert.deepEqual(resolveTemplate("${pvc.name}-${pvc.annotations['example.com/key']}", 'name', ctx), { value: 'data-k1' });
    assert.deepEqual(resolveTemplate('${pvc.namespace}', 'namespace', ctx), { value: 'team' });
    assert.ok('error' in resolveTemplate("${pvc.annotations['missing']}", 'name', ctx));
    assert.ok('error' in resolveTemplate('${pvc.name}', 'namespace', ctx));
    assert.ok('error' in resolveTemplate('UPPER-${pv.name}', 'name', ctx));
  });

  it('every secret kind is resolved for the claim; the default pair stands in for a kind that names none', () => {
    const refs = secretRefsFor(
      request({
        parameters: {
          'csi.storage.k8s.io/secret-name': 'shared',
          'csi.storage.k8s.io/secret-namespace': 'storage',
          'csi.storage.k8s.io/node-publish-secret-name': '${pvc.name}-publish',
          'csi.storage.k8s.io/node-publish-secret-namespace': '${pvc.namespace}',
        },
      }),
    );
    assert.deepEqual(refs.provisioner, { name: 'shared', namespace: 'storage' });
    assert.deepEqual(refs['node-publish'], { name: 'data-publish', namespace: 'team' });
    assert.deepEqual(refs['controller-expand'], { name: 'shared', namespace: 'storage' });
  });
});

describe('volume capabilities', () => {
  it('access modes map as csi-lib-utils maps them, SINGLE_NODE_MULTI_WRITER only when the driver has it', () => {
    assert.equal(csiAccessMode(['ReadWriteOnce'], false), 'SINGLE_NODE_WRITER');
    assert.equal(csiAccessMode(['ReadWriteOnce'], true), 'SINGLE_NODE_MULTI_WRITER');
    assert.equal(csiAccessMode(['ReadWriteOncePod'], true), 'SINGLE_NODE_SINGLE_WRITER');
    assert.equal(csiAccessMode(['ReadWriteOncePod'], false), 'SINGLE_NODE_WRITER');
    assert.equal(csiAccessMode(['ReadOnlyMany'], false), 'MULTI_NODE_READER_ONLY');
    assert.equal(csiAccessMode(['ReadWriteMany', 'ReadOnlyMany'], false), 'MULTI_NODE_MULTI_WRITER');
    assert.ok(typeof csiAccessMode(['ReadOnlyMany', 'ReadWriteOnce'], false) === 'object');
  });

  it('a Block claim asks for a block volume; a Filesystem one for a mount with fsType and the class mount options', () => {
    assert.deepEqual(createCapabilities(['ReadWriteOnce'], { volumeMode: 'Block', fsType: 'xfs', mountOptions: ['ro'] }, false), [{ block: {}, accessMode: 'SINGLE_NODE_WRITER' }]);
    assert.deepEqual(createCapabilities(['ReadWriteOnce', 'ReadOnlyMany'], { volumeMode: 'Filesystem', fsType: 'xfs', mountOptions: ['noatime'] }, false), [
      { mount: { fsType: 'xfs', mountFlags: ['noatime'] }, accessMode: 'SINGLE_NODE_WRITER' },
      { mount: { fsType: 'xfs', mountFlags: ['noatime'] }, accessMode: 'MULTI_NODE_READER_ONLY' },
    ]);
    assert.deepEqual(volumeCapability(['ReadWriteMany'], { volumeMode: 'Filesystem', fsType: '', mountOptions: [] }, false), { mount: { mountFlags: [] }, accessMode: 'MULTI_NODE_MULTI_WRITER' });
    assert.throws(() => volumeCapability(['ReadOnlyMany', 'ReadWriteOnce'], { volumeMode: 'Block', fsType: '', mountOptions: [] }, false), PluginError);
  });

  it('CreateVolume carries the backing name, the requested bytes and the VolumeAttributesClass parameters', () => {
    const create = createVolumeRequest(request({ attributes: { iops: '3000' }, parameters: { 'csi.storage.k8s.io/fstype': 'ext4' } }), traits);
    assert.equal(create.name, 'unit-dynamic-pvc-1');
    assert.deepEqual(create.capacityRange, { requiredBytes: 1073741824n });
    assert.deepEqual(create.mutableParameters, { iops: '3000' });
    assert.equal(create.volumeCapabilities[0].mount?.fsType, 'ext4');
  });
});

function topologySource(nodes: Record<string, Record<string, string>>): CsiTopologySource {
  return {
    nodeSegment: async (_d, node) => nodes[node],
    allSegments: async () => [...new Map(Object.values(nodes).map((s) => [JSON.stringify(s), s])).values()],
  };
}

describe('accessibility requirements', () => {
  const nodes = { n1: { zone: 'a' }, n2: { zone: 'b' }, n3: { zone: 'c' } };
  const base = { driver: 'fake.csi.io', claimName: 'data', strict: false, immediate: true };

  it("with a selected node: every segment is requisite and the node's segment is preferred first", async () => {
    const r = await accessibilityRequirements(topologySource(nodes), { ...base, selectedNode: 'n2' });
    assert.deepEqual(r?.requisite, [{ zone: 'a' }, { zone: 'b' }, { zone: 'c' }]);
    assert.deepEqual(r?.preferred, [{ zone: 'b' }, { zone: 'c' }, { zone: 'a' }]);
  });

  it("strict topology: only the selected node's segment, refused when allowedTopologies exclude it", async () => {
    const r = await accessibilityRequirements(topologySource(nodes), { ...base, selectedNode: 'n2', strict: true });
    assert.deepEqual(r, { requisite: [{ zone: 'b' }], preferred: [{ zone: 'b' }] });
    await assert.rejects(
      accessibilityRequirements(topologySource(nodes), { ...base, selectedNode: 'n2', strict: true, allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }] }),
      (e: unknown) => e instanceof PluginError && !e.retryable,
    );
  });

  it('allowedTopologies are flattened into one segment per combination of values', () => {
    const terms = flattenAllowedTopologies([{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }, { key: 'rack', values: ['r1'] }] }]);
    assert.deepEqual(terms, [[['rack', 'r1'], ['zone', 'a']], [['rack', 'r1'], ['zone', 'b']]]);
  });

  it('immediate binding: every segment, rotated by the claim name; none when immediate topology is off', async () => {
    const r = await accessibilityRequirements(topologySource(nodes), base);
    assert.equal(r?.requisite.length, 3);
    const i = claimSpreadOffset('data') % 3;
    assert.deepEqual(r?.preferred[0], r?.requisite[i]);
    assert.equal(await accessibilityRequirements(topologySource(nodes), { ...base, immediate: false }), undefined);
    // A StatefulSet's replicas rotate by their index.
    assert.equal(claimSpreadOffset('www-web-1'), claimSpreadOffset('www-web-0') + 1);
  });

  it('a selected node without a CSINode entry for the driver is a retryable failure', async () => {
    await assert.rejects(accessibilityRequirements(topologySource(nodes), { ...base, selectedNode: 'n9' }), (e: unknown) => e instanceof PluginError && e.retryable);
  });

  it('the PV node affinity has one term per accessible segment', () => {
    assert.deepEqual(nodeAffinityOf([{ zone: 'a', rack: 'r1' }, { zone: 'b' }]), {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1'] }, { key: 'zone', operator: 'In', values: ['a'] }] },
          { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
        ],
      },
    });
    assert.equal(nodeAffinityOf([]), undefined);
  });
});

describe('the PV source of a created volume', () => {
  it('carries driver, handle, fsType, volume context plus the provisioner identity, secret refs, and the deletion-secret annotations', () => {
    const req = request({
      parameters: {
        'csi.storage.k8s.io/fstype': 'xfs',
        'csi.storage.k8s.io/provisioner-secret-name': 'prov',
        'csi.storage.k8s.io/provisioner-secret-namespace': 'storage',
        'csi.storage.k8s.io/controller-expand-secret-name': 'grow',
        'csi.storage.k8s.io/controller-expand-secret-namespace': 'storage',
      },
    });
    const create = createVolumeRequest(req, traits);
    const out = provisionedFrom(req, create, { volumeId: 'v-1', capacityBytes: 0n, volumeContext: { pool: 'p' }, accessibleTopology: [{ zone: 'a' }] }, secretRefsFor(req), traits);
    assert.deepEqual(out.source, {
      csi: {
        driver: 'fake.csi.io',
        volumeHandle: 'v-1',
        fsType: 'xfs',
        volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': traits.identity, pool: 'p' },
        controllerExpandSecretRef: { name: 'grow', namespace: 'storage' },
      },
    });
    assert.equal(out.capacity, '1Gi', 'a driver reporting 0 bytes gets the request');
    assert.deepEqual(out.annotations, {
      'volume.kubernetes.io/provisioner-deletion-secret-name': 'prov',
      'volume.kubernetes.io/provisioner-deletion-secret-namespace': 'storage',
    });
    assert.deepEqual(out.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]);
  });
});
