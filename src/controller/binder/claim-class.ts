/**
 * What a claim's StorageClass decides when no existing volume matched (upstream
 * `syncUnboundClaim` and `provisionClaim`): retroactive default class, WaitForFirstConsumer, and
 * where provisioning goes.
 */
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import {
  ANN_BETA_STORAGE_CLASS,
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_STORAGE_PROVISIONER,
} from '@pv-controller/kube/annotations.js';
import { NO_PROVISIONER } from '@pv-controller/kube/annotations.js';
import { csiMigrationTarget } from '@pv-controller/kube/csi-migration.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import { defaultStorageClass, hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { BindingError, claimKeyOf } from './bind.js';
import {
  msgWaitForFirstConsumer,
  msgExternalProvisioning,
  msgWaitForPods,
} from './events.js';
import type { BinderDeps } from './hooks.js';
import { matchingClassOfClaim } from './match.js';
import { EventReason } from '../runtime/event-reasons.js';

/**
 * A claim with no class at all (nil, no beta annotation) gets today's default class (upstream's
 * retroactive default StorageClass assignment).
 * Returns true when the claim was updated (its update event re-syncs it).
 */
export async function assignDefaultClass(s: BinderDeps, claim: PersistentVolumeClaim): Promise<boolean> {
  if (hasAnnotation(claim, ANN_BETA_STORAGE_CLASS) || claim.spec.storageClassName != null) return false;
  const cls = defaultStorageClass(s.ctx.classes.list());
  const name = cls?.metadata.name;
  if (!name) return false;
  const next = structuredClone(claim);
  next.spec.storageClassName = name;
  await s.ctx.api.updateClaim(next);
  s.log.info({ claim: claimKeyOf(claim), storageClass: name, why: 'no volume matched; default class' }, 'claim class assigned');
  return true;
}

/** `IsDelayBindingMode`: true for a WaitForFirstConsumer class; unknown class ⇒ false. */
export function isDelayBindingMode(s: BinderDeps, claim: PersistentVolumeClaim): boolean {
  const className = matchingClassOfClaim(claim);
  if (className === '') return false;
  const cls = s.ctx.classes.get(className);
  if (!cls) return false;
  if (!cls.volumeBindingMode) throw new BindingError(`VolumeBindingMode not set for StorageClass "${className}"`);
  return cls.volumeBindingMode === 'WaitForFirstConsumer';
}

/** A delayed-binding claim's event: WaitForPodScheduled naming unscheduled pods that use it, if any are known. */
export function emitWaitingForConsumer(s: BinderDeps, claim: PersistentVolumeClaim): void {
  const pods = (s.ctx.pods?.list() ?? []).filter(
    (p) =>
      p.metadata.namespace === claim.metadata.namespace &&
      !p.spec?.nodeName &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim.metadata.name),
  );
  const names = pods.map((p) => p.metadata.name ?? '').sort();
  if (names.length > 0) s.ctx.events.event(claim, 'Normal', EventReason.WaitForPodScheduled, msgWaitForPods(names));
  else s.ctx.events.event(claim, 'Normal', EventReason.WaitForFirstConsumer, msgWaitForFirstConsumer(claim.metadata.namespace ?? '', claim.metadata.name ?? ''));
}

/** Writes both storage-provisioner annotations unless the GA one already has this value. */
async function setClaimProvisioner(s: BinderDeps, claim: PersistentVolumeClaim, provisioner: string): Promise<PersistentVolumeClaim> {
  if (claim.metadata.annotations?.[ANN_STORAGE_PROVISIONER] === provisioner) return claim;
  const next = structuredClone(claim);
  next.metadata.annotations = {
    ...next.metadata.annotations,
    [ANN_STORAGE_PROVISIONER]: provisioner,
    [ANN_BETA_STORAGE_PROVISIONER]: provisioner,
  };
  try {
    const saved = await s.ctx.api.updateClaim(next);
    s.log.info({ claim: claimKeyOf(claim), provisioner, why: 'external provisioning' }, 'claim provisioner set');
    return saved;
  } catch (err) {
    if (!isConflict(err)) {
      const msg = err instanceof Error ? err.message : String(err);
      s.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, `Error saving claim: ${msg}`);
    }
    throw err;
  }
}

/**
 * The claim has a class and no volume matched. A provisioner this process serves gets the
 * claim through `hooks.provisionClaim`; any other is external, except unknown `kubernetes.io/`
 * names, which no one will ever serve. The claim's status is left alone.
 */
export async function routeToProvisioner(s: BinderDeps, claim: PersistentVolumeClaim): Promise<SyncResult> {
  const className = matchingClassOfClaim(claim);
  const cls = s.ctx.classes.get(className) ?? (await s.ctx.api.getStorageClass(className));
  if (!cls) {
    s.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, `storageclass.storage.k8s.io "${className}" not found`);
    return DONE;
  }
  const { provisionClaim, servesProvisioner } = s.hooks;
  const served = servesProvisioner ? servesProvisioner(cls.provisioner) : provisionClaim !== undefined;
  if (served && provisionClaim) return provisionClaim.call(s.hooks, claim);
  // A migrated in-tree name nobody here serves goes to its CSI driver's provisioner under the
  // driver's name (kube-controller-manager's provisionClaimOperationExternal).
  const provisioner = csiMigrationTarget(cls.provisioner) ?? cls.provisioner;
  // An in-tree name nobody here serves fails as upstream — but only when this process runs a
  // provisioner: a binder-only process (--controllers without provisioner) hands every class to
  // the external-provisioner protocol, so our provisioner running elsewhere picks it up.
  if (provisioner === NO_PROVISIONER || (provisioner.startsWith('kubernetes.io/') && provisionClaim !== undefined)) {
    s.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, `no volume plugin matched name: ${provisioner}`);
    return DONE;
  }
  const saved = await setClaimProvisioner(s, claim, provisioner);
  s.ctx.events.event(saved, 'Normal', EventReason.ExternalProvisioning, msgExternalProvisioning(provisioner));
  return DONE;
}
