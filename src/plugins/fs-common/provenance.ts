/**
 * Provenance for directory volumes: the record a file plugin writes under its root before it
 * creates a volume's directory (metadata-record.ts) is the one fact about a volume no user can
 * write through the API. A PV is proven ours when its path is safely contained (containedVolumePath:
 * inside a configured root, no symlink, not another PV's directory) and the record of the path's
 * last component names this plugin, this PV and exactly this directory.
 */
import { posix } from 'node:path';
import { TAG_CREATED_FOR_PV_NAME } from '@pv-controller/kube/annotations.js';
import { containedVolumePath } from './directory-volume.js';
import { readRecord } from './metadata-record.js';
import { isSafeComponent } from './safe-path.js';

/** True when `plugin` recorded the directory at `path` (inside one of `roots`) for the PV `pvName`; false for anything else, never a throw. */
export async function recordProvesVolume(roots: string[], path: string, pvName: string, plugin: string): Promise<boolean> {
  const backingName = posix.basename(path);
  if (pvName === '' || !isSafeComponent(backingName) || backingName.startsWith('.')) return false;
  try {
    const contained = await containedVolumePath(roots, path, backingName, pvName);
    const record = await readRecord(contained.root, backingName);
    return (
      record !== undefined &&
      record.plugin === plugin &&
      record.tags[TAG_CREATED_FOR_PV_NAME] === pvName &&
      posix.join(contained.root, record.subPath) === contained.path
    );
  } catch {
    return false;
  }
}
