/**
 * The claim node-gone re-creates for a new node: the bound claim's name, namespace, labels,
 * annotations and owner references, and its spec without `volumeName`, so the new claim is
 * Pending and provisions (or binds) afresh. The annotations this controller and the scheduler
 * write while binding and provisioning are dropped, so nothing points the new claim back at the
 * gone node or the old volume; finalizers and status are never copied. Kept as JSON in a PV
 * annotation between the old claim's deletion and the new one's creation.
 */
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
} from '@pv-controller/kube/annotations.js';
import type { ObjectMeta, PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimSpec } from '@pv-controller/kube/types.js';

const BINDING_ANNOTATIONS = [ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, ANN_BETA_STORAGE_PROVISIONER];

export interface ClaimTemplate {
  /** The uid of the claim being replaced: only that object is ever deleted. */
  uid: string;
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels' | 'annotations' | 'ownerReferences'> & { name: string; namespace: string };
  spec: PersistentVolumeClaimSpec;
}

export function claimTemplateOf(claim: PersistentVolumeClaim): ClaimTemplate {
  const { labels, annotations, ownerReferences } = claim.metadata;
  const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !BINDING_ANNOTATIONS.includes(key)));
  const { volumeName: _bound, ...spec } = claim.spec;
  return {
    uid: claim.metadata.uid ?? '',
    metadata: {
      name: claim.metadata.name ?? '',
      namespace: claim.metadata.namespace ?? '',
      ...(labels ? { labels: { ...labels } } : {}),
      ...(Object.keys(kept).length > 0 ? { annotations: kept } : {}),
      ...(ownerReferences ? { ownerReferences: structuredClone(ownerReferences) } : {}),
    },
    spec: structuredClone(spec),
  };
}

export function claimFromTemplate(template: ClaimTemplate): PersistentVolumeClaim {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: structuredClone(template.metadata), spec: structuredClone(template.spec) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The template an annotation holds; undefined when it is not one (edited by hand, truncated). */
export function parseClaimTemplate(text: string): ClaimTemplate | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.uid !== 'string' || value.uid === '' || !isRecord(value.metadata) || !isRecord(value.spec)) return undefined;
  const { name, namespace } = value.metadata;
  if (typeof name !== 'string' || name === '' || typeof namespace !== 'string' || namespace === '') return undefined;
  return value as unknown as ClaimTemplate;
}

/**
 * The claim is bound to the PV both ways: the PV's claimRef names its uid and the claim's
 * volumeName names the PV. Only then is it the PV's claim: a claimRef alone is what anyone who
 * may write PVs can point at any claim; volumeName is written on the claim, in its namespace.
 */
export function isBoundBothWays(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec.claimRef;
  return (
    ref?.uid !== undefined &&
    ref.uid === claim.metadata.uid &&
    ref.namespace === claim.metadata.namespace &&
    ref.name === claim.metadata.name &&
    claim.spec.volumeName === pv.metadata.name
  );
}
