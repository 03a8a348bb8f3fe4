/**
 * Finalizer annealing (upstream `modifyDeletionFinalizers`): a PV provisioned
 * by a plugin this controller serves carries `kubernetes.io/pv-controller` exactly while its
 * reclaim policy is Delete, so deleting the PV object before its claim still deletes the backing
 * volume. Static PVs and PVs of provisioners we do not serve are never touched.
 */
import { csiMigrationTarget } from '@pv-controller/kube/csi-migration.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_PROVISIONED_BY, FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER } from '@pv-controller/kube/annotations.js';

export function hasFinalizer(pv: PersistentVolume, finalizer: string): boolean {
  return (pv.metadata.finalizers ?? []).includes(finalizer);
}

/** A copy of `obj` without `finalizer` (the finalizers field dropped when it becomes empty). */
export function withoutFinalizer<T extends { metadata: { finalizers?: string[] } }>(obj: T, finalizer: string): T {
  const next = structuredClone(obj);
  const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  if (rest.length === 0) delete next.metadata.finalizers;
  else next.metadata.finalizers = rest;
  return next;
}

export function withFinalizer<T extends { metadata: { finalizers?: string[] } }>(obj: T, finalizer: string): T {
  const next = structuredClone(obj);
  next.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return next;
}

/**
 * The PV with its deletion finalizers annealed, or undefined when nothing changes. Only for PVs
 * whose `provisioned-by` names a provisioner we serve. Delete ⇒ `kubernetes.io/pv-controller`
 * present (never added to an object already being deleted: the API server forbids new finalizers
 * then); Retain/Recycle ⇒ absent; an unknown policy leaves it as it is. A PV we serve never keeps
 * the external provisioner's finalizer: its deletion is ours — an in-tree provisioner's PV
 * ("kubernetes.io/…"), and a CSI driver's PV once this process drives the driver in place of
 * external-provisioner (whose HonorPVReclaimPolicy finalizer its PVs still carry). Except a
 * migrated in-tree name (`kubernetes.io/aws-ebs`, ...): it is also the migrated driver's
 * external-provisioner's own name (its additional provisioner name), and that sidecar puts its
 * finalizer back on every such PV — taking it off only starts a write loop with the sidecar
 * (measured on the real control plane: ~50 writes/s each). Left on, the sidecar deletes the same
 * backing volume through its driver once the PV is released; our delete drops it (delete.ts).
 */
export function annealDeletionFinalizer(
  pv: PersistentVolume,
  servesProvisioner: (name: string) => boolean,
): PersistentVolume | undefined {
  const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
  if (provisioner === undefined || !servesProvisioner(provisioner)) return undefined;
  let next = pv;
  if (csiMigrationTarget(provisioner) === undefined && hasFinalizer(next, FINALIZER_EXTERNAL_PROVISIONER)) {
    next = withoutFinalizer(next, FINALIZER_EXTERNAL_PROVISIONER);
  }
  const has = hasFinalizer(next, FINALIZER_PV_CONTROLLER);
  const policy = pv.spec.persistentVolumeReclaimPolicy;
  if (policy === 'Delete' && !has && !pv.metadata.deletionTimestamp) next = withFinalizer(next, FINALIZER_PV_CONTROLLER);
  if ((policy === 'Retain' || policy === 'Recycle') && has) next = withoutFinalizer(next, FINALIZER_PV_CONTROLLER);
  return next === pv ? undefined : next;
}
