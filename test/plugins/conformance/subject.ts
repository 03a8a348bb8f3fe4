/**
 * What a conformance check is run against: a fresh, isolated plugin and a way to ask its backend
 * (not the plugin) what it holds, plus the requests and PVs the controller would build for it.
 * Each check makes its own subject and cleans it up, so checks never see each other's volumes.
 * Optional fields of the subject tune the checks for plugins that need parameters.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { backingName as makeBackingName } from '../../../src/plugins/naming.js';
import type { ProvisionRequest, ProvisionedVolume, VolumePlugin } from '../../../src/plugins/api/core.js';
import type { CapabilityGuard } from '../../../src/plugins/registry.js';

export interface ConformanceSubject {
  plugin: VolumePlugin;
  cleanup(): Promise<void>;
  /** Whether the backend holds a volume with this backing name (asked of the backend, not the plugin). */
  backingExists(backingName: string): Promise<boolean>;
  /** StorageClass parameters the plugin accepts and provisions with; default `{}`. */
  parameters?: Record<string, string>;
  /** Parameters the plugin must reject, and the parameter its problem must name; default: an unknown key. */
  invalidParameters?: { parameters: Record<string, string>; parameter: string };
  /** expand: false when the subject's volumes cannot grow (plain directories), so expand must refuse them for good. Default true. */
  growable?: boolean;
  /** modify: VolumeAttributesClass parameters the plugin accepts and applies; the modify sub-suite needs them. */
  attributes?: Record<string, string>;
  /** node-scoped: the node the plugin serves alone (a node agent); absent: it serves every node. */
  nodeName?: string;
  /** snapshot: writes a file into a provisioned volume, through its backend (not the plugin); restore and clone checks need it. */
  writeFile?(pv: PersistentVolume, name: string, content: string): Promise<void>;
  /** snapshot: a file's content in a provisioned volume (undefined when it has none). */
  readFile?(pv: PersistentVolume, name: string): Promise<string | undefined>;
  /** snapshot: a handle of this plugin's own kind that another instance owns (another node's), made from one of its own. */
  foreignSnapshotId?(own: string): string;
}

/** Builds a fresh subject; every check calls it once. */
export type SubjectFactory = () => Promise<ConformanceSubject>;

/** One check of a (sub-)suite, runnable on its own (the suite's own tests run checks against broken plugins). */
export interface ConformanceCheck {
  name: string;
  run(make: SubjectFactory): Promise<void>;
}

export const CONFORMANCE_CLUSTER = 'conformance';
export const UNKNOWN_PARAMETER = 'pv-controller.io/no-such-parameter';

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
      // As the provisioner's template: the plugin's own annotations (a CSI proof), then ours.
      annotations: { ...(volume.annotations ?? {}), [ANN_PROVISIONED_BY]: plugin.name },
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

/** Runs `body` on a fresh subject and always cleans it up. */
export async function withSubject(make: SubjectFactory, body: (subject: ConformanceSubject) => Promise<void>): Promise<void> {
  const subject = await make();
  try {
    await body(subject);
  } finally {
    await subject.cleanup();
  }
}

/** A request with the subject's accepted parameters. */
export function requestFor(subject: ConformanceSubject, overrides: Partial<ProvisionRequest> = {}): ProvisionRequest {
  return conformanceRequest(subject.plugin, { parameters: { ...(subject.parameters ?? {}) }, ...overrides });
}

/** Provisions a volume for the subject and returns the request and the PV the provisioner would save. */
export async function provisionedVolume(
  subject: ConformanceSubject,
  overrides: Partial<ProvisionRequest> = {},
): Promise<{ req: ProvisionRequest; pv: PersistentVolume }> {
  const req = requestFor(subject, overrides);
  return { req, pv: conformanceVolume(subject.plugin, req, await subject.plugin.provision(req)) };
}

/** The subject's plugin as having a capability; a check of that capability's sub-suite fails when it has not. */
export function claimed<C>(plugin: VolumePlugin, can: CapabilityGuard<C>): VolumePlugin & C {
  assert.ok(can(plugin), `${plugin.name} does not have the capability this sub-suite checks`);
  return plugin;
}
