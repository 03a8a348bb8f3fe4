/**
 * Usage of the whole filesystem holding a path, from one statfs(2) call: cheap, but every
 * directory on that filesystem reports the same numbers. Right for a volume that *is* a
 * filesystem (a mounted disk, a `local` PV on its own mount); for directory volumes use du.ts.
 */
import { promises as fs } from 'node:fs';
import { MetricsError, type MetricsProvider, type VolumeMetrics } from './provider.js';

export interface FilesystemStats {
  capacityBytes: bigint;
  availableBytes: bigint;
  /** Blocks in use, reserved ones excluded ((f_blocks - f_bfree) * f_bsize, as kubelet's MetricsStatFS). */
  usedBytes: bigint;
  inodes: bigint;
  inodesFree: bigint;
}

/** statfs of `path`: capacity and availability as an unprivileged user sees them (f_bavail). */
export async function filesystemStats(path: string): Promise<FilesystemStats> {
  if (path === '') throw new MetricsError('no path defined for filesystem metrics');
  let st;
  try {
    st = await fs.statfs(path, { bigint: true });
  } catch (err) {
    throw new MetricsError(`failed to get filesystem info for "${path}": ${describe(err)}`, { cause: err });
  }
  return {
    capacityBytes: st.blocks * st.bsize,
    availableBytes: st.bavail * st.bsize,
    usedBytes: (st.blocks - st.bfree) * st.bsize,
    inodes: st.files,
    inodesFree: st.ffree,
  };
}

export class StatfsMetricsProvider implements MetricsProvider {
  constructor(private readonly path: string) {}

  async getMetrics(signal?: AbortSignal): Promise<VolumeMetrics> {
    signal?.throwIfAborted();
    const fsStats = await filesystemStats(this.path);
    return {
      capacityBytes: fsStats.capacityBytes,
      availableBytes: fsStats.availableBytes,
      usedBytes: fsStats.usedBytes,
      inodes: fsStats.inodes,
      inodesFree: fsStats.inodesFree,
      inodesUsed: fsStats.inodes - fsStats.inodesFree,
      time: new Date(),
    };
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
