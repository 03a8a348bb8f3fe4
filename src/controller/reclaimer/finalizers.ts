/**
 * Finalizer annealing (upstream `modifyDeletionFinalizers`): a PV provisioned
 * by a plugin this controller serves carries `kubernetes.io/pv-controller` exactly while its
 * reclaim policy is Delete, so deleting the PV object before its claim still deletes the backing
 * volume. Static PVs and PVs of provisioners we do not serve are never touched.
 */
import type { PersistentVolume } from '../../kube/types.js';
import { ANN_PROVISIONED_BY, FINALIZER_PV_CONTROLLER } from '../../kube/annotations.js';

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
 * The PV with its deletion finalizer annealed, or undefined when nothing changes. Only for PVs
 * whose `provisioned-by` names a provisioner we serve. Delete ⇒ present (never added to an object
 * already being deleted: the API server forbids new finalizers then); Retain/Recycle ⇒ absent;
 * an unknown policy leaves it as it is.
 */
export function annealDeletionFinalizer(
  pv: PersistentVolume,
  servesProvisioner: (name: string) => boolean,
): PersistentVolume | undefined {
  const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
  if (provisioner === undefined || !servesProvisioner(provisioner)) return undefined;
  const has = hasFinalizer(pv, FINALIZER_PV_CONTROLLER);
  const policy = pv.spec.persistentVolumeReclaimPolicy;
  if (policy === 'Delete' && !has && !pv.metadata.deletionTimestamp) return withFinalizer(pv, FINALIZER_PV_CONTROLLER);
  if ((policy === 'Retain' || policy === 'Recycle') && has) return withoutFinalizer(pv, FINALIZER_PV_CONTROLLER);
  return undefined;
}
