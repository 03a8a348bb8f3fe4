/** Small pure helpers of the host-path plugin: root normalisation, a class's sizing, a PV's node pin. */
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
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

/** True when the PV's node affinity requires exactly this node (the only shape our local PVs have). */
export function pinnedTo(pv: PersistentVolume, node: string): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  return (
    terms.length === 1 &&
    (terms[0].matchExpressions ?? []).some((e) => e.key === LABEL_HOSTNAME && e.operator === 'In' && e.values?.length === 1 && e.values[0] === node)
  );
}

export function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
