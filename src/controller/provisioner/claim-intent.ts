/**
 * The claim-side record of provisioning: the `pv-controller.io/provisioning` finalizer says "a
 * backing volume may exist for this claim and no PV names it yet". It is written (with the
 * storage-provisioner annotations naming the plugin, so cleanup never needs the class) before the
 * plugin creates anything, and removed only once the PV exists or the backing volume is gone.
 */
import {
  ANN_BACKING_GENERATION,
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  ANN_VALUE_YES,
  FINALIZER_PROVISIONING,
} from '@pv-controller/kube/annotations.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ApiClient } from '../runtime/context.js';

const RELEASE_ATTEMPTS = 5;

export function hasProvisioningFinalizer(claim: PersistentVolumeClaim): boolean {
  return (claim.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING);
}

/** The claim's backing generation (ANN_BACKING_GENERATION): a non-negative integer, else 0. */
export function backingGeneration(claim: PersistentVolumeClaim): number {
  const value = claim.metadata.annotations?.[ANN_BACKING_GENERATION] ?? '';
  return /^[0-9]{1,6}$/.test(value) ? Number(value) : 0;
}

/** The provisioner a claim was annotated for (GA key first, then the beta twin). */
export function annotatedProvisioner(claim: PersistentVolumeClaim): string | undefined {
  const annotations = claim.metadata.annotations ?? {};
  return annotations[ANN_STORAGE_PROVISIONER] ?? annotations[ANN_BETA_STORAGE_PROVISIONER];
}

/**
 * Adds the finalizer and both storage-provisioner annotations in one update guarded by the
 * claim's resourceVersion; returns the claim unchanged when both are already there.
 */
export async function recordIntent(api: ApiClient, claim: PersistentVolumeClaim, provisioner: string): Promise<PersistentVolumeClaim> {
  const annotations = claim.metadata.annotations ?? {};
  const annotated =
    annotations[ANN_STORAGE_PROVISIONER] === provisioner && annotations[ANN_BETA_STORAGE_PROVISIONER] === provisioner;
  if (hasProvisioningFinalizer(claim) && annotated) return claim;
  const next = structuredClone(claim);
  next.metadata.annotations = {
    ...next.metadata.annotations,
    [ANN_STORAGE_PROVISIONER]: provisioner,
    [ANN_BETA_STORAGE_PROVISIONER]: provisioner,
  };
  if (!hasProvisioningFinalizer(claim)) next.metadata.finalizers = [...(next.metadata.finalizers ?? []), FINALIZER_PROVISIONING];
  return api.updateClaim(next);
}

export interface ReleaseOptions {
  /** Also drop `volume.kubernetes.io/selected-node` so the scheduler chooses again. */
  dropSelectedNode?: boolean;
  /** Checked before every write: once aborted, nothing more is written. */
  signal?: AbortSignal;
  /**
   * The claim as last read (live) by the caller: tried first, so the usual case costs no GET; a
   * 409 (it was not the newest) falls back to reading the claim live.
   */
  current?: PersistentVolumeClaim;
  /**
   * The PV now exists for this claim: in the same write, bind the claim to it — `volumeName`,
   * `bound-by-controller` and `bind-completed`, exactly what the binder's claim step writes — if
   * the claim is still unbound and not being deleted. One claim write instead of two, and no race
   * with the binder over the claim (the binder leaves a claim alone while its operation runs).
   */
  bindTo?: string;
  /**
   * The claim's backing volume was just deleted after a failed attempt: in the same write, count
   * it in `pv-controller.io/backing-generation`, so the next attempt's plugin call is a new one
   * (see ProvisionRequest.generation).
   */
  backingDeleted?: boolean;
}

/**
 * Removes the finalizer (and optionally selected-node) from the live claim, re-reading it after
 * a 409. Returns the saved claim, the live one when nothing had to change, or undefined when the
 * claim (this incarnation) is gone.
 */
export async function releaseIntent(
  api: ApiClient,
  namespace: string,
  name: string,
  uid: string,
  options: ReleaseOptions = {},
): Promise<PersistentVolumeClaim | undefined> {
  let copy = options.current?.metadata.uid === uid ? options.current : undefined;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    const live = copy ?? (await api.getClaim(namespace, name));
    copy = undefined;
    if (!live || live.metadata.uid !== uid) return undefined;
    const next = withoutIntent(live, options.dropSelectedNode === true, options.bindTo, options.backingDeleted === true);
    if (!next) return live;
    options.signal?.throwIfAborted();
    try {
      return await api.updateClaim(next);
    } catch (err) {
      if (!isConflict(err) || attempt >= RELEASE_ATTEMPTS) throw err;
    }
  }
}

/** Whether the claim may be bound to `pvName` as part of the release (see ReleaseOptions.bindTo). */
function bindsNow(claim: PersistentVolumeClaim, pvName: string | undefined): pvName is string {
  return pvName !== undefined && !claim.metadata.deletionTimestamp && !claim.spec.volumeName && claim.metadata.annotations?.[ANN_BIND_COMPLETED] === undefined;
}

function withoutIntent(
  claim: PersistentVolumeClaim,
  dropSelectedNode: boolean,
  bindTo: string | undefined,
  backingDeleted: boolean,
): PersistentVolumeClaim | undefined {
  const dropNode = dropSelectedNode && claim.metadata.annotations?.[ANN_SELECTED_NODE] !== undefined;
  if (!hasProvisioningFinalizer(claim) && !dropNode) return undefined;
  const next = structuredClone(claim);
  // Counted only while the intent is still recorded: once released, another attempt may have
  // begun under the same generation.
  if (backingDeleted && hasProvisioningFinalizer(claim)) {
    next.metadata.annotations = { ...next.metadata.annotations, [ANN_BACKING_GENERATION]: String(backingGeneration(claim) + 1) };
  }
  next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_PROVISIONING);
  if (dropNode && next.metadata.annotations) delete next.metadata.annotations[ANN_SELECTED_NODE];
  if (bindsNow(claim, bindTo)) {
    next.spec.volumeName = bindTo;
    next.metadata.annotations = { ...next.metadata.annotations, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES, [ANN_BIND_COMPLETED]: ANN_VALUE_YES };
  }
  return next;
}
