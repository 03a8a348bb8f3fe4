/**
 * Claim ↔ volume predicates of the binder: the checks upstream's `FindMatchingVolume`
 * (persistentvolume/util) and `checkVolumeSatisfyClaim` (pv_controller.go) apply one volume at a
 * time.
 */
import type { NodeSelectorRequirement, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import {
  accessModesContain,
  claimRequestBytes,
  storageClassOfClaim,
  storageClassOfVolume,
  volumeCapacityBytes,
  volumeModeOf,
} from '@pv-controller/kube/volume-helpers.js';

/** The matching class of a claim: nil and "" are the same for matching (upstream `GetPersistentVolumeClaimClass`). */
export function matchingClassOfClaim(claim: PersistentVolumeClaim): string {
  return storageClassOfClaim(claim) ?? '';
}

export function volumeAttributesClassOf(x: { spec: { volumeAttributesClassName?: string } }): string {
  return x.spec.volumeAttributesClassName ?? '';
}

/** True when the volumeModes differ (nil on either side counts as Filesystem). */
export function volumeModeMismatch(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  return volumeModeOf(pv) !== volumeModeOf(claim);
}

/** Storage size the claim requests; 0 when it requests nothing or the request cannot be read. */
export function requestBytesOf(claim: PersistentVolumeClaim): bigint {
  try {
    return claimRequestBytes(claim);
  } catch {
    return 0n;
  }
}

/** Storage size the volume offers; 0 when it has no (readable) capacity, as upstream. */
export function capacityBytesOf(pv: PersistentVolume): bigint {
  try {
    return volumeCapacityBytes(pv);
  } catch {
    return 0n;
  }
}

/**
 * Why a volume named by `claim.spec.volumeName` cannot be bound to the claim, or undefined when
 * it can. Checks in upstream order, first failure wins; the label selector and the PV's phase
 * are deliberately not checked: a user who names a volume has chosen it.
 */
export function checkVolumeSatisfyClaim(
  pv: PersistentVolume,
  claim: PersistentVolumeClaim,
): string | undefined {
  if (pv.metadata.deletionTimestamp) {
    return `the volume is marked for deletion "${pv.metadata.name ?? ''}"`;
  }
  if (capacityBytesOf(pv) < requestBytesOf(claim)) return 'requested PV is too small';
  if (storageClassOfVolume(pv) !== matchingClassOfClaim(claim)) {
    return 'storageClassName does not match';
  }
  if (volumeAttributesClassOf(pv) !== volumeAttributesClassOf(claim)) {
    return 'volumeAttributesClassName does not match';
  }
  if (volumeModeMismatch(pv, claim)) return 'incompatible volumeMode';
  if (!accessModesContain(pv.spec.accessModes, claim.spec.accessModes)) {
    return 'incompatible accessMode';
  }
  return undefined;
}

function requirementMatches(req: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value);
    case 'NotIn':
      return !has || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false;
      const have = Number.parseInt(value, 10);
      const want = Number.parseInt(values[0], 10);
      if (Number.isNaN(have) || Number.isNaN(want)) return false;
      return req.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

/**
 * Whether a node with these labels satisfies the volume's required node affinity (terms are
 * ORed, expressions within a term ANDed). A volume without affinity fits every node.
 * `matchFields` can only name `metadata.name`, which is passed as `nodeName`.
 */
export function nodeAffinityAllows(
  pv: PersistentVolume,
  nodeName: string,
  labels: Record<string, string>,
): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => requirementMatches(r, labels)) &&
      fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, { 'metadata.name': nodeName }))
    );
  });
}
