/**
 * The line of `up`'s banner that says which StorageClass a claim without one gets: read from the
 * classes as they are at start, so it stays true after someone makes another class the default
 * (the class `up` creates is created only when absent, and never made the default again).
 */
import { ANN_BETA_DEFAULT_STORAGE_CLASS, ANN_DEFAULT_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';

export interface ClassSummary {
  name: string;
  provisioner: string;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
}

function isDefault(c: ClassSummary): boolean {
  return c.annotations?.[ANN_DEFAULT_STORAGE_CLASS] === 'true' || c.annotations?.[ANN_BETA_DEFAULT_STORAGE_CLASS] === 'true';
}

/** What a newcomer needs to know of the classes: `up`'s own, and which one a claim without a class gets. */
export function classesLine(classes: ClassSummary[], own: { name: string; kind: string }): string {
  const mine = classes.find((c) => c.name === own.name);
  const defaults = classes.filter(isDefault);
  const ownText = mine ? `StorageClass "${own.name}" (${own.kind}${isDefault(mine) ? ', default' : ''}) is ready` : `StorageClass "${own.name}" is missing`;
  if (defaults.length === 1 && defaults[0] === mine) return `${ownText}.`;
  if (defaults.length === 0) return `${ownText}; no StorageClass is the default, so a claim must name one (storageClassName).`;
  // kube-apiserver's admission gives a claim the newest default when there are several.
  const newest = [...defaults].sort((a, b) => (b.creationTimestamp ?? '').localeCompare(a.creationTimestamp ?? '') || a.name.localeCompare(b.name))[0]!;
  const several = defaults.length > 1 ? ` (of ${defaults.length} defaults: ${defaults.map((c) => c.name).sort().join(', ')}, the newest)` : '';
  return `${ownText}; a claim without a class gets "${newest.name}" (provisioner ${newest.provisioner})${several}.`;
}
