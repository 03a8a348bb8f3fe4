/** Small pure helpers of the host-path plugin: root normalisation, a class's sizing, a PV's path and source. */
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import type { PersistentVolume, PersistentVolumeSpec } from '@pv-controller/kube/types.js';
import { PluginError } from '../api/errors.js';
import { SIZING_PARAMETER, type Sizing } from './image-volume.js';

export function normaliseRoot(root: string): string {
  if (typeof root !== 'string' || !root.startsWith('/') || posix.normalize(root) === '/') {
    throw new PluginError('InvalidParameter', `host-path root "${root}" must be an absolute directory other than "/"`, false);
  }
  return posix.normalize(root).replace(/\/+$/, '');
}

export function sizingOf(parameters: Record<string, string>): Sizing {
  return parameters[SIZING_PARAMETER] === 'image' ? 'image' : 'none';
}

export function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The directory a host-path PV names: `spec.hostPath.path` or `spec.local.path`. */
export function volumePath(pv: PersistentVolume): string | undefined {
  return pv.spec.hostPath?.path ?? pv.spec.local?.path;
}

/** A volume's source: `local` when it is pinned to a node (a node agent), else a hostPath. */
export function volumeSourceFor(nodeName: string | undefined, path: string): Partial<PersistentVolumeSpec> {
  if (nodeName !== undefined) return { local: { path } };
  return { hostPath: { path, type: 'DirectoryOrCreate' } };
}

/** Whether a class's `root` parameter names one of the configured roots (normalised, trailing slashes ignored). */
export function isConfiguredRoot(roots: readonly string[], value: string): boolean {
  return value.startsWith('/') && roots.includes(posix.normalize(value).replace(/(.)\/+$/, '$1'));
}
