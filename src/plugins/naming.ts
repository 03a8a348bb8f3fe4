/**
 * Backing-volume names: `<cluster-name>-dynamic-<pv-name>`. The PV name is unique in the cluster
 * and the cluster name keeps two clusters sharing one cloud project apart. When the whole does
 * not fit the backend's limit, the prefix is shortened, never the PV name: the PV name is what
 * makes the name unique.
 */

export const DYNAMIC_INFIX = '-dynamic-';

export function backingName(clusterName: string, pvName: string, maxLength = Infinity): string {
  return shortened(clusterName, DYNAMIC_INFIX, pvName, maxLength, 'volume name');
}

/** `<prefix><infix><unique>`, the prefix cut to fit `maxLength` (then dropped with the infix); `unique` is never cut. */
function shortened(prefix: string, infix: string, unique: string, maxLength: number, what: string): string {
  const full = `${prefix}${infix}${unique}`;
  if (full.length <= maxLength) return full;
  const room = maxLength - infix.length - unique.length;
  if (room >= 1) return `${prefix.slice(0, room)}${infix}${unique}`;
  // Not even one character of the prefix fits: keep the unique part whole, drop the rest.
  if (unique.length <= maxLength) return unique;
  throw new RangeError(`${what} "${unique}" is longer than the backend's limit of ${maxLength}`);
}

/** The PV name inside a backing name made by `backingName`, or undefined if it is not one of ours. */
export function pvNameOfBackingName(name: string): string | undefined {
  const at = name.indexOf(DYNAMIC_INFIX);
  return at < 0 ? undefined : name.slice(at + DYNAMIC_INFIX.length);
}

/** Whether a backing name was made for this cluster (prefix shortened or not). */
export function isBackingNameOfCluster(name: string, clusterName: string): boolean {
  const at = name.indexOf(DYNAMIC_INFIX);
  if (at < 0) return false;
  const prefix = name.slice(0, at);
  return prefix.length > 0 && clusterName.startsWith(prefix);
}

export const SNAPSHOT_INFIX = '-snapshot-';

/**
 * A backend snapshot's name: `<cluster-name>-snapshot-<VolumeSnapshot uid>`, deterministic per
 * VolumeSnapshot so that a repeated create (after a crash, a lost answer, a restart) finds the
 * snapshot the first one made instead of cutting a second. Shortened as `backingName` is: the
 * cluster-name prefix gives way, never the uid.
 */
export function snapshotBackendName(clusterName: string, vsUid: string, maxLength = Infinity): string {
  return shortened(clusterName, SNAPSHOT_INFIX, vsUid, maxLength, 'snapshot uid');
}
