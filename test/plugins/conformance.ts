/**
 * The contract every VolumePlugin must honour (see src/plugins/plugin.ts), as one shared suite.
 * A plugin's test file calls it once with a factory that builds a fresh, isolated plugin:
 *
 *   import { runPluginConformance } from '../conformance.js';
 *   runPluginConformance('aws-ebs', async () => ({ plugin, cleanup, backingExists }));
 *
 * Each test makes its own subject and cleans it up, so tests never see each other's volumes.
 * Optional fields of the subject tune the suite for plugins that need parameters.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { ANN_PROVISIONED_BY } from '../../src/kube/annotations.js';
import type { PersistentVolume } from '../../src/kube/types.js';
import { backingName as makeBackingName } from '../../src/plugins/naming.js';
import type { ProvisionRequest, ProvisionedVolume, VolumePlugin } from '../../src/plugins/plugin.js';

export interface ConformanceSubject {
  plugin: VolumePlugin;
  cleanup(): Promise<void>;
  /** Whether the backend holds a volume with this backing name (asked of the backend, not the plugin). */
  backingExists(backingName: string): Promise<boolean>;
  /** StorageClass parameters the plugin accepts and provisions with; default `{}`. */
  parameters?: Record<string, string>;
  /** Parameters the plugin must reject, and the parameter its problem must name; default: an unknown key. */
  invalidParameters?: { parameters: Record<string, string>; parameter: string };
}

export const CONFORMANCE_CLUSTER = 'conformance';
const UNKNOWN_PARAMETER = 'pv-controller.io/no-such-parameter';

/** A provision request for a fresh PV name, as the provisioner would build it. */
export function conformanceRequest(
  plugin: VolumePlugin,
  overrides: Partial<ProvisionRequest> = {},
): ProvisionRequest {
  const pvName = overrides.pvName ?? `pvc-${randomUUID()}`;
  const clusterName = overrides.clusterName ?? CONFORMANCE_CLUSTER;
  return {
    backingName: makeBackingName(clusterName, pvName, plugin.maxBackingNameLength),
    clusterName,
    pvName,
    claim: {
      name: 'data',
      namespace: 'conformance-ns',
      uid: randomUUID(),
      labels: {},
      annotations: {},
    },
    requestBytes: 1024n * 1024n * 1024n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: {},
    mountOptions: [],
    ...overrides,
  };
}

/** The PV the provisioner would create for a provisioned volume. */
export function conformanceVolume(
  plugin: VolumePlugin,
  req: ProvisionRequest,
  volume: ProvisionedVolume,
): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: req.pvName,
      annotations: { [ANN_PROVISIONED_BY]: plugin.name },
      labels: { ...(volume.labels ?? {}) },
    },
    spec: {
      ...volume.source,
      capacity: { storage: volume.capacity },
      accessModes: req.accessModes,
      persistentVolumeReclaimPolicy: 'Delete',
      volumeMode: req.volumeMode,
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: req.claim.namespace,
        name: req.claim.name,
        uid: req.claim.uid,
      },
      ...(volume.nodeAffinity ? { nodeAffinity: volume.nodeAffinity } : {}),
    },
  };
}

/** A PV no plugin of ours provisions: a CSI volume of a made-up driver. */
export function foreignVolume(): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: `pvc-${randomUUID()}`,
      annotations: { [ANN_PROVISIONED_BY]: 'conformance.example.com/other-driver' },
    },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      csi: { driver: 'conformance.example.com', volumeHandle: 'foreign-1' },
    },
  };
}

async function withSubject(
  make: () => Promise<ConformanceSubject>,
  body: (subject: ConformanceSubject) => Promise<void>,
): Promise<void> {
  const subject = await make();
  try {
    await body(subject);
  } finally {
    await subject.cleanup();
  }
}

function requestFor(subject: ConformanceSubject, overrides: Partial<ProvisionRequest> = {}): ProvisionRequest {
  return conformanceRequest(subject.plugin, { parameters: { ...(subject.parameters ?? {}) }, ...overrides });
}

export function runPluginConformance(name: string, make: () => Promise<ConformanceSubject>): void {
  describe(`volume plugin conformance: ${name}`, () => {
    registerProvisionTests(make);
    registerDeleteTests(make);
    registerParameterAndOwnershipTests(make);
  });
}

function registerProvisionTests(make: () => Promise<ConformanceSubject>): void {
  it('provisioning the same backing name twice yields one volume with the same source', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      const first = await s.plugin.provision(req);
      const second = await s.plugin.provision({ ...req });
      assert.deepEqual(second.source, first.source);
      assert.equal(second.capacity, first.capacity);
      assert.equal(await s.backingExists(req.backingName), true);
      if (s.plugin.listBackingVolumes) {
        const listed = await s.plugin.listBackingVolumes(req.clusterName);
        assert.equal(listed.filter((v) => v.backingName === req.backingName).length, 1);
      }
    }));

  it('backing volumes are listed for their own cluster only', async (t) => {
    await withSubject(make, async (s) => {
      if (!s.plugin.listBackingVolumes) {
        // Optional: the orphan scan covers only plugins that list their backing volumes.
        t.skip(`${s.plugin.name} does not list its backing volumes (listBackingVolumes is optional)`);
        return;
      }
      const req = requestFor(s);
      await s.plugin.provision(req);
      const own = await s.plugin.listBackingVolumes(req.clusterName);
      const match = own.find((v) => v.backingName === req.backingName);
      assert.ok(match, `listBackingVolumes(${req.clusterName}) misses ${req.backingName}`);
      assert.equal(match.pvName, req.pvName);
      const other = await s.plugin.listBackingVolumes('some-other-cluster');
      assert.equal(other.some((v) => v.backingName === req.backingName), false);
    });
  });

  it('recycling keeps the backing volume', async (t) => {
    await withSubject(make, async (s) => {
      if (!s.plugin.recycle) {
        // Optional: the reclaimer fails a Recycle policy on such a plugin's volume (no recycler) before any plugin call.
        t.skip(`${s.plugin.name} does not recycle (recycle is optional; a Recycle policy on its volumes fails with no recycler)`);
        return;
      }
      const req = requestFor(s);
      const pv = conformanceVolume(s.plugin, req, await s.plugin.provision(req));
      await s.plugin.recycle(pv);
      assert.equal(await s.backingExists(req.backingName), true);
    });
  });
}

function registerDeleteTests(make: () => Promise<ConformanceSubject>): void {
  it('deleting a provisioned volume twice succeeds both times and removes it', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      const pv = conformanceVolume(s.plugin, req, await s.plugin.provision(req));
      await s.plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
      assert.equal(await s.backingExists(req.backingName), false);
      await s.plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
      assert.equal(await s.backingExists(req.backingName), false);
    }));

  it('deleting by backing name alone (claim gone mid-provision) removes the volume', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      await s.plugin.provision(req);
      await s.plugin.delete({ backingName: req.backingName, parameters: req.parameters });
      assert.equal(await s.backingExists(req.backingName), false);
    }));

  it('deleting a backing name that was never created succeeds', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      await s.plugin.delete({ backingName: req.backingName, parameters: req.parameters });
      assert.equal(await s.backingExists(req.backingName), false);
    }));
}

function registerParameterAndOwnershipTests(make: () => Promise<ConformanceSubject>): void {
  it('accepted parameters produce no problems', () =>
    withSubject(make, async (s) => {
      assert.deepEqual(s.plugin.validateParameters({ ...(s.parameters ?? {}) }), []);
    }));

  it('invalid parameters produce a problem naming the parameter', () =>
    withSubject(make, async (s) => {
      const bad = s.invalidParameters ?? {
        parameters: { ...(s.parameters ?? {}), [UNKNOWN_PARAMETER]: 'x' },
        parameter: UNKNOWN_PARAMETER,
      };
      const problems = s.plugin.validateParameters(bad.parameters);
      assert.ok(
        problems.some((p) => p.parameter === bad.parameter && p.message.length > 0),
        `expected a problem naming "${bad.parameter}", got ${JSON.stringify(problems)}`,
      );
    }));

  it('handles its own PVs and not another plugin\'s', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      const pv = conformanceVolume(s.plugin, req, await s.plugin.provision(req));
      assert.equal(s.plugin.handles(pv), true);
      assert.equal(s.plugin.handles(foreignVolume()), false);
    }));

  it('metricsFor returns a usage provider for its PVs', () =>
    withSubject(make, async (s) => {
      const req = requestFor(s);
      const pv = conformanceVolume(s.plugin, req, await s.plugin.provision(req));
      const provider = s.plugin.metricsFor(pv);
      assert.equal(typeof provider.getMetrics, 'function');
    }));

  it('has a provisioner name and a positive backing-name limit', () =>
    withSubject(make, async (s) => {
      assert.match(s.plugin.name, /^[a-z0-9.-]+\/[A-Za-z0-9._-]+$/);
      assert.ok(s.plugin.maxBackingNameLength > 0);
    }));
}
