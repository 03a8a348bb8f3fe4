/**
 * Undoing a provisioning that will not be published: delete the claim's backing volume (by its
 * deterministic name, through the plugin named in the claim's storage-provisioner annotation)
 * and only then drop the intent finalizer. If the delete fails the finalizer stays, so the next
 * sync (or the next controller, after a crash) tries again: nothing is ever forgotten.
 */
import type { PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { storageClassOfClaim } from '@pv-controller/kube/volume-helpers.js';
import type { ProvisionRequest, VolumePlugin } from '../../plugins/api/core.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { annotatedProvisioner, hasProvisioningFinalizer, releaseIntent } from './claim-intent.js';
import { errorText, msgCleanedUp, msgCleanupFailed } from './events.js';
import { measured } from '../runtime/operation-metrics.js';
import { claimBackingName, planProvision, provisionedVolumeName } from './request.js';
import type { ProvisionerDeps } from './deps.js';
import { EventReason } from '../runtime/event-reasons.js';
import { releaseCloneOf } from './clone-protection.js';
import { contentSourceForCleanup } from './content-source.js';
import { claimDataSource } from './data-source.js';

export interface CleanupOptions {
  why: string;
  /** Drop selected-node too (a failed WaitForFirstConsumer provision: let the scheduler choose again). */
  dropSelectedNode?: boolean;
  signal: AbortSignal;
}

/** Which plugin made the claim's backing volume: the annotation we wrote with the finalizer, else the class. */
async function pluginOfClaim(d: ProvisionerDeps, claim: PersistentVolumeClaim): Promise<VolumePlugin | undefined> {
  const annotated = annotatedProvisioner(claim);
  if (annotated !== undefined) return d.plugins.byProvisioner(annotated);
  const className = storageClassOfClaim(claim) ?? '';
  const cls = className === '' ? undefined : (d.ctx.classes.get(className) ?? (await d.ctx.api.getStorageClass(className)));
  return cls ? d.plugins.byProvisioner(cls.provisioner) : undefined;
}

async function storageClassOf(d: ProvisionerDeps, claim: PersistentVolumeClaim): Promise<StorageClass | undefined> {
  const className = storageClassOfClaim(claim) ?? '';
  if (className === '') return undefined;
  return d.ctx.classes.get(className) ?? (await d.ctx.api.getStorageClass(className));
}

/**
 * The request the claim was provisioned with, rebuilt by the same code (planProvision), for a
 * plugin whose backend picks the volume's id (CSI): it repeats the idempotent create to learn it,
 * with the same content source (read again: the snapshot and the clone's source are protected
 * while the claim is Pending, so they are still there).
 * Undefined when the class or the claim no longer make a request.
 */
async function provisionRequestOf(
  d: ProvisionerDeps,
  claim: PersistentVolumeClaim,
  plugin: VolumePlugin,
  storageClass: StorageClass | undefined,
): Promise<ProvisionRequest | undefined> {
  if (!storageClass) return undefined;
  const vacName = claim.spec.volumeAttributesClassName ?? '';
  const attributesClass = vacName === '' ? undefined : await d.ctx.api.getVolumeAttributesClass?.(vacName);
  const plan = planProvision({ claim, storageClass, plugin, clusterName: d.clusterName, attributesClass });
  if (!plan.ok) return undefined;
  const contentSource = await contentSourceForCleanup(d, claim, claimDataSource(claim));
  return contentSource ? { ...plan.request, contentSource } : plan.request;
}

/**
 * Deletes the backing volume of `claim` (when it carries our finalizer) and releases the
 * finalizer. Returns true when done, false when the delete failed (event emitted, finalizer kept).
 */
export async function cleanUpClaimVolume(d: ProvisionerDeps, claim: PersistentVolumeClaim, o: CleanupOptions): Promise<boolean> {
  const key = keyOf(claim);
  let backingDeleted = false;
  if (hasProvisioningFinalizer(claim)) {
    const plugin = await pluginOfClaim(d, claim);
    if (!plugin) {
      const detail = `no volume plugin serves provisioner "${annotatedProvisioner(claim) ?? ''}"`;
      d.ctx.events.event(claim, 'Warning', EventReason.ProvisioningCleanupFailed, msgCleanupFailed(key, detail));
      return false;
    }
    // A PV naming the volume owns it now (another controller may have published it): reclaim decides.
    const published = await d.ctx.api.getVolume(provisionedVolumeName(claim));
    if (!published) {
      if (!(await deleteBackingVolume(d, claim, plugin, o))) return false;
      backingDeleted = true;
    }
  }
  o.signal.throwIfAborted();
  // The backing volume is gone (or a PV owns it): no copy runs any more for this clone.
  await releaseCloneOf(d.ctx.api, claim, o.signal);
  await releaseIntent(d.ctx.api, claim.metadata.namespace ?? '', claim.metadata.name ?? '', claim.metadata.uid ?? '', {
    dropSelectedNode: o.dropSelectedNode === true,
    signal: o.signal,
    backingDeleted,
  });
  d.log.info({ claim: key, why: o.why }, 'provisioning intent released');
  return true;
}

async function deleteBackingVolume(
  d: ProvisionerDeps,
  claim: PersistentVolumeClaim,
  plugin: VolumePlugin,
  o: CleanupOptions,
): Promise<boolean> {
  const key = keyOf(claim);
  const backingName = claimBackingName(claim, plugin, d.clusterName);
  const storageClass = await storageClassOf(d, claim);
  const parameters = storageClass?.parameters ? { ...storageClass.parameters } : undefined;
  const provision = await provisionRequestOf(d, claim, plugin, storageClass);
  o.signal.throwIfAborted();
  try {
    await measured(d.metrics, plugin.name, 'delete', () =>
      plugin.delete({ backingName, signal: o.signal, ...(parameters ? { parameters } : {}), ...(provision ? { provision: { ...provision, signal: o.signal } } : {}) }),
    );
  } catch (err) {
    o.signal.throwIfAborted();
    d.log.warn({ claim: key, backingName, err: errorText(err) }, 'cleanup of provisioned volume failed');
    d.ctx.events.event(claim, 'Warning', EventReason.ProvisioningCleanupFailed, msgCleanupFailed(key, errorText(err)));
    return false;
  }
  d.log.info({ claim: key, backingName, why: o.why }, 'backing volume deleted');
  d.ctx.events.event(claim, 'Normal', EventReason.ProvisioningCleanedUp, msgCleanedUp(backingName, o.why));
  return true;
}
