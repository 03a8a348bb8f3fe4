/**
 * Backing-volume names: `<cluster-name>-dynamic-<pv-name>`. The PV name is unique in the cluster
 * and the cluster name keeps two clusters sharing one cloud project apart. When the whole does
 * not fit the backend's limit, the prefix is shortened, never the PV name: the PV name is what
 * makes the name unique.
 */

export const DYNAMIC_INFIX = '-dynamic-';

export function backingName(clusterName: string, pvName: string, maxLength = Infinity): string {
  const full = `${clusterName}${DYNAMIC_INFIX}${pvName}`;
  if (full.length <= maxLength) return full;
  const room = maxLength - DYNAMIC_INFIX.length - pvName.length;
  if (room >= 1) return `${clusterName.slice(0, room)}${DYNAMIC_INFIX}${pvName}`;
  // Not even one character of the cluster name fits: keep the PV name whole, drop the rest.
  if (pvName.length <= maxLength) return pvName;
  throw new RangeError(`volume name "${pvName}" is longer than the backend's limit of ${maxLength}`);
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
