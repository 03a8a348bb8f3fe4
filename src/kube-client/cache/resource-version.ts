/**
 * resourceVersions compared as integers, as the upstream controller does (`storeObjectUpdate`):
 * "10" is newer than "2". Every sync and index choosing between two copies of an object asks
 * `isNewerCopy` (or the two pickers built on it), so "the newest copy" means one thing.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';

/** The integer resourceVersion; anything unparsable is -1, so a real version always sorts above it. */
export function rvNumber(rv: string | undefined): number {
  if (rv === undefined || rv === '') return -1;
  const n = Number(rv);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

/** Whether `a` is known to be a later copy than `b`: both carry integer resourceVersions and a's is higher. */
export function isNewerCopy(a: KubeObject, b: KubeObject): boolean {
  const x = rvNumber(a.metadata.resourceVersion);
  const y = rvNumber(b.metadata.resourceVersion);
  return x >= 0 && y >= 0 && x > y;
}

/** The newest of several copies: a later argument wins only when it is newer, so earlier ones win ties and unknowns. */
export function newestOf<T extends KubeObject>(...copies: (T | undefined)[]): T | undefined {
  let best: T | undefined;
  for (const copy of copies) if (copy && (!best || isNewerCopy(copy, best))) best = copy;
  return best;
}

/** `other` when it is the same object as `given` (uid) and a newer copy of it, else `given`. */
export function newerCopyOf<T extends KubeObject>(given: T, other: T | undefined): T {
  return other && other.metadata.uid === given.metadata.uid && isNewerCopy(other, given) ? other : given;
}
