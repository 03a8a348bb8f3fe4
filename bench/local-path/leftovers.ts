/**
 * What a provisioner left on the node after every claim of a run was deleted: entries in its
 * root (volume directories, and our sized volumes' images), mounts at or below the root, and
 * loop devices whose backing file is under the root. Read from the host's own view: the
 * provisioners, the kubelet and the pods all share its mount namespace here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '../../src/plugins/host-path/image-volume.js';

export interface Leftovers {
  entries: string[];
  images: string[];
  mounts: string[];
  loopDevices: string[];
}

export function leftoverCount(l: Leftovers): number {
  return l.entries.length + l.images.length + l.mounts.length + l.loopDevices.length;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Mount points (field 5 of /proc/<pid>/mountinfo, octal escapes undone) at or below `dir`. */
export function mountsUnder(mountinfo: string, dir: string): string[] {
  return mountinfo
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
}

/** Loop devices (from /sys/block) backed by a file under `dir`. */
export function loopDevicesUnder(dir: string, sysBlock = '/sys/block'): string[] {
  return list(sysBlock)
    .filter((d) => d.startsWith('loop'))
    .filter((d) => {
      try {
        const backing = readFileSync(join(sysBlock, d, 'loop', 'backing_file'), 'utf8').trim();
        return backing.startsWith(`${dir}/`);
      } catch {
        return false;
      }
    });
}

/** Everything under `root` a run left: hidden bookkeeping of ours apart, only the images counted. */
export function leftoversUnder(root: string): Leftovers {
  return {
    entries: list(root).filter((n) => !n.startsWith('.')),
    images: list(join(root, IMAGE_DIR)),
    mounts: mountsUnder(readFileSync('/proc/self/mountinfo', 'utf8'), root),
    loopDevices: loopDevicesUnder(root),
  };
}
