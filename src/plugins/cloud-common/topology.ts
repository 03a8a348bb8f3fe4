/** PV labels and node affinity for a disk that lives in one zone (or, replicated, in several). */
import {
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_TOPOLOGY_REGION,
  LABEL_TOPOLOGY_ZONE,
  ZONE_LABEL_MULTI_ZONE_DELIMITER,
} from '@pv-controller/kube/annotations.js';
import type { NodeSelectorRequirement, PersistentVolume, VolumeNodeAffinity } from '@pv-controller/kube/types.js';

export interface DiskTopology {
  labels: Record<string, string>;
  nodeAffinity: VolumeNodeAffinity;
}

/**
 * `topology.kubernetes.io/zone` (several zones joined by `__`, as upstream labelled regional
 * disks) and, when known, `topology.kubernetes.io/region`; the node affinity requires a node in
 * one of the zones (and the region).
 */
export function diskTopology(zones: string[], region?: string): DiskTopology {
  const sorted = [...zones].sort();
  const labels: Record<string, string> = {
    [LABEL_TOPOLOGY_ZONE]: sorted.join(ZONE_LABEL_MULTI_ZONE_DELIMITER),
  };
  const expressions: NodeSelectorRequirement[] = [
    { key: LABEL_TOPOLOGY_ZONE, operator: 'In', values: sorted },
  ];
  if (region !== undefined && region !== '') {
    labels[LABEL_TOPOLOGY_REGION] = region;
    expressions.push({ key: LABEL_TOPOLOGY_REGION, operator: 'In', values: [region] });
  }
  return {
    labels,
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: expressions }] } },
  };
}

/** The zones a PV records in its labels or node affinity; [] when it records none. */
export function zonesOfVolume(pv: PersistentVolume | undefined): string[] {
  if (pv === undefined) return [];
  const labels = pv.metadata.labels ?? {};
  const label = labels[LABEL_TOPOLOGY_ZONE] ?? labels[LABEL_FAILURE_DOMAIN_BETA_ZONE];
  if (label !== undefined && label !== '') return label.split(ZONE_LABEL_MULTI_ZONE_DELIMITER);
  for (const term of pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const expression of term.matchExpressions ?? []) {
      const isZoneKey =
        expression.key === LABEL_TOPOLOGY_ZONE || expression.key === LABEL_FAILURE_DOMAIN_BETA_ZONE;
      if (isZoneKey && expression.operator === 'In' && expression.values?.length) {
        return [...expression.values];
      }
    }
  }
  return [];
}
