/** What a restored or cloned host-path volume is made from (host-path-snapshots.ts builds it; the plugin's provision uses it). */
import type { CopyStats } from '../fs-common/file-copy.js';
import type { OpenDir } from '../fs-common/no-follow.js';
import { imageBytesFor } from './image-volume.js';

export interface VolumeContents {
  /** The root the source lies in: preferred for the new volume (a reflink needs the same filesystem). */
  root: string;
  /** Sized volumes: the bytes the new image needs at least (the source's image size). */
  minBytes: bigint;
  /** A plain directory volume: copies the contents into the open, empty directory. */
  fillDirectory(into: OpenDir): Promise<CopyStats>;
  /** A sized volume: writes the complete image at `temporary`, grown to `bytes`. */
  fillImage(temporary: string, bytes: bigint): Promise<void>;
  /** Called with what a directory fill copied (a repeated call that found the volume complete copies nothing). */
  filled(stats: CopyStats): void;
}

/** A sized volume's image size: the request in whole MiB (at least the minimum), and never less than `minBytes`. */
export function sizedBytes(requestBytes: bigint, minBytes: bigint | undefined): bigint {
  const asked = imageBytesFor(requestBytes);
  return minBytes !== undefined && minBytes > asked ? minBytes : asked;
}
