/**
 * Usage of a host-path volume, re-checked for containment at every measurement: one statfs of
 * the mount for a sized volume (its own filesystem: O(1), no tree walk), du for a plain
 * directory (which shares its root's filesystem, so only a walk can tell its usage).
 */
import { posix } from 'node:path';
import { MetricsError, type MetricsProvider, type VolumeMetrics } from '../../metrics/provider.js';
import { StatfsMetricsProvider } from '../../metrics/statfs.js';
import { ContainedDuMetricsProvider } from '../fs-common/directory-volume.js';
import { readRecord } from '../fs-common/metadata-record.js';
import { resolveInsideRoot, type ContainedPath } from '../fs-common/safe-path.js';
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
    if (this.path === undefined) throw new MetricsError('no path defined for disk usage metrics');
    let contained: ContainedPath;
    try {
      contained = await resolveInsideRoot(this.roots(), this.path);
    } catch (err) {
      throw new MetricsError(`cannot measure "${this.path}": ${(err as Error).message}`, { cause: err });
    }
    const record = await readRecord(contained.root, posix.basename(contained.path)).catch(() => undefined);
    if (record?.sizing !== 'image') return this.du.getMetrics(signal);
    // Unmounted, statfs would measure the root's filesystem and report it as the volume's.
    if (!(await isMountPoint(contained.path))) throw new MetricsError(`sized volume "${contained.path}" is not mounted`);
    return new StatfsMetricsProvider(contained.path).getMetrics(signal);
  }
}
