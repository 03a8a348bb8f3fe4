/**
 * A plugin whose volumes are entries in a map: the conformance suite's own subject, correct by
 * default and broken on request, so the suite is shown to pass a plugin that keeps the contracts
 * and to fail one that claims a capability but breaks it.
 */
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import type { MetricsProvider } from '../../../src/metrics/provider.js';
import type { BackingVolume, BackingVolumeLister } from '../../../src/plugins/api/capabilities/backing-volumes.js';
import type { ExpandedVolume, Expander, ExpandRequest } from '../../../src/plugins/api/capabilities/expand.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../../src/plugins/api/core.js';
import { type ParameterProblem, PluginError } from '../../../src/plugins/api/errors.js';
import type { ConformanceSubject } from './subject.js';

const DRIVER = 'memory.conformance.example.com';

/** How a MemoryPlugin breaks a capability's contract. */
export interface MemoryPluginFlaws {
  /** expand answers without growing the volume. */
  expandDoesNotGrow?: boolean;
  /** listBackingVolumes lists every cluster's volumes as the one asked. */
  listsEveryCluster?: boolean;
}

interface MemoryVolume {
  bytes: bigint;
  clusterName: string;
  pvName: string;
}

export class MemoryPlugin implements VolumePlugin, Expander, BackingVolumeLister {
  readonly name = 'conformance.example.com/memory';
  readonly maxBackingNameLength = 63;
  readonly volumes = new Map<string, MemoryVolume>();

  constructor(private readonly flaws: MemoryPluginFlaws = {}) {}

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return Object.keys(parameters).map((parameter) => ({ parameter, message: `unknown parameter "${parameter}"` }));
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.csi?.driver === DRIVER;
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    const volume = this.volumes.get(req.backingName) ?? { bytes: req.requestBytes, clusterName: req.clusterName, pvName: req.pvName };
    this.volumes.set(req.backingName, volume);
    return { source: { csi: { driver: DRIVER, volumeHandle: req.backingName } }, capacity: formatBytes(volume.bytes) };
  }

  async delete(req: DeleteRequest): Promise<void> {
    this.volumes.delete(req.backingName);
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`in-memory volume "${pv.metadata.name ?? ''}"`);
  }

  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const volume = this.volumes.get(String(req.pv.spec.csi?.volumeHandle));
    if (!volume) throw new PluginError('Backend', `no volume for PV "${req.pv.metadata.name}"`, true);
    if (!this.flaws.expandDoesNotGrow && req.sizeBytes > volume.bytes) volume.bytes = req.sizeBytes;
    return { capacity: formatBytes(volume.bytes), nodeExpansionRequired: false };
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const listed = [...this.volumes].filter(([, v]) => this.flaws.listsEveryCluster === true || v.clusterName === clusterName);
    return listed.map(([backingName, v]) => ({ backingName, id: backingName, pvName: v.pvName }));
  }
}

/** A conformance subject of a fresh plugin (a MemoryPlugin unless `build` makes another over the same flaws). */
export function memorySubject(
  flaws: MemoryPluginFlaws = {},
  build: (flaws: MemoryPluginFlaws) => MemoryPlugin = (f) => new MemoryPlugin(f),
): () => Promise<ConformanceSubject> {
  return async () => {
    const plugin = build(flaws);
    return { plugin, cleanup: async () => undefined, backingExists: async (name) => plugin.volumes.has(name) };
  };
}
