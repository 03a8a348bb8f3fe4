/**
 * Usage of a host-path volume, re-checked for containment at every measurement: one statfs of
 * the mount for a sized volume (its own filesystem: O(1), no tree walk), du for a plain
 * directory (which shares its root's filesystem, so only a walk can tell its usage).
 */
import { posix } from 'node:path';
import { MetricsError, type MetricsProvider, type VolumeMetrics } from '../../metrics/provider.js';
import { StatfsMetricsProvider } from '../../metrics/statfs.js';
import { ContainedDuMetricsProvider, containedForMeasuring } from '../fs-common/directory-volume.js';
import { readRecord } from '../fs-common/metadata-record.js';
import { isMountPoint } from './image-volume.js';

export class HostPathMetricsProvider implements MetricsProvider {
  private readonly du: ContainedDuMetricsProvider;

  constructor(
    private readonly roots: () => string[],
    private readonly path: string | undefined,
    capacityBytes: bigint | undefined,
  ) {
    this.du = new ContainedDuMetricsProvider(roots, path, capacityBytes);
  }

  async getMetrics(signal?: AbortSignal): Promise<VolumeMetrics> {
    const contained = await containedForMeasuring(this.roots(), this.path);
    const record = await readRecord(contained.root, posix.basename(contained.path)).catch(() => undefined);
    if (record?.sizing !== 'image') return this.du.getMetrics(signal);
    // Unmounted, statfs would measure the root's filesystem and report it as the volume's.
    if (!(await isMountPoint(contained.path))) throw new MetricsError(`sized volume "${contained.path}" is not mounted`);
    return new StatfsMetricsProvider(contained.path).getMetrics(signal);
  }
}
