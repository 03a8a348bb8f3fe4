/**
 * One provisioning operation for one claim (upstream `provisionClaimOperation`), resumable from any step:
 *
 *   live claim ─► PV pvc-<uid> exists? ─► release intent (done)
 *      │ deleted / bound elsewhere ─► delete backing volume, release intent
 *      ▼
 *   class, plugin, WaitForFirstConsumer, parameters ─► (problem: event, backoff)
 *      ▼
 *   record intent (finalizer) ─► plugin.provision ─► live claim again
 *      │ deleted meanwhile / provision failed ─► delete backing volume, release intent
 *      ▼
 *   create PV (AlreadyExists = success; retried) ─► release intent ─► binder binds
 *
 * Every decision starts from a live GET; a 409 restarts the operation on fresh data. Once the
 * controller stops, the operation makes no further API writes: a stop is a crash, and the next
 * controller resumes from the finalizer.
 */
import { ANN_BIND_COMPLETED, ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import { hasAnnotation, storageClassOfClaim } from '@pv-controller/kube/volume-helpers.js';
import type { ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../plugins/api/core.js';
import { PluginError } from '../../plugins/api/errors.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { hasProvisioningFinalizer, recordIntent, releaseIntent } from './claim-intent.js';
import { cleanUpClaimVolume } from './cleanup.js';
import type { ProvisionerDeps } from './deps.js';
import {
  errorText,
  msgProvisioned,
  msgProvisionFailed,
  msgProvisioning,
} from './events.js';
import { measured } from '../runtime/operation-metrics.js';
import type { OperationHandle, OperationOutcome } from '../runtime/operations.js';
import { savePersistentVolume } from './save-volume.js';
import { protectCloneSource, releaseCloneOf } from './clone-protection.js';
import { provisionFromRequest, resolveContentSource } from './content-source.js';
import { CLAIM_KIND, claimDataSource, cloneSourceName, type ClaimDataSource } from './data-source.js';
import { msgSourceClaimDeleting, msgSourceClaimNotFound, msgSourceProblem } from './data-source-messages.js';
import { planProvision, provisionedVolumeName } from './request.js';
import { provisionedVolume } from './volume-template.js';
import { EventReason } from '../runtime/event-reasons.js';

/** Which claim (this incarnation: uid) the operation is for. */
export interface ProvisionTarget {
  namespace: string;
  name: string;
  uid: string;
}

const CONFLICT_RESTARTS = 3;

export async function runProvisionOperation(d: ProvisionerDeps, target: ProvisionTarget, h: OperationHandle): Promise<OperationOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new ProvisionOperation(d, target, h).run();
    } catch (err) {
      if (h.stopSignal.aborted) return 'stopped';
      if (isConflict(err) && attempt < CONFLICT_RESTARTS) continue;
      d.log.warn({ claim: `${target.namespace}/${target.name}`, err: errorText(err) }, 'provisioning operation failed');
      return 'failed';
    }
  }
}

/** Why a claim no longer wants the volume we may have made, or undefined if it still does. */
function leavingReason(claim: PersistentVolumeClaim, pvName: string): string | undefined {
  if (claim.metadata.deletionTimestamp) return 'the claim is being deleted';
  const bound = claim.spec.volumeName;
  if (bound && bound !== pvName) return `the claim is bound to volume "${bound}"`;
  if (bound || hasAnnotation(claim, ANN_BIND_COMPLETED)) return `the claim's volume "${pvName}" is gone`;
  return undefined;
}

class ProvisionOperation {
  private readonly key: string;

  constructor(
    private readonly d: ProvisionerDeps,
    private readonly target: ProvisionTarget,
    private readonly h: OperationHandle,
  ) {
    this.key = `${target.namespace}/${target.name}`;
  }

  private async liveClaim(): Promise<PersistentVolumeClaim | undefined> {
    this.h.stopSignal.throwIfAborted();
    const claim = await this.d.ctx.api.getClaim(this.target.namespace, this.target.name);
    return claim?.metadata.uid === this.target.uid ? claim : undefined;
  }

  async run(): Promise<OperationOutcome> {
    const claim = await this.liveClaim();
    if (!claim) return 'succeeded';
    const pvName = provisionedVolumeName(claim);
    const existing = await this.d.ctx.api.getVolume(pvName);
    if (existing) return this.published(claim, existing, pvName, 'the volume already exists');
    const leaving = leavingReason(claim, pvName);
    if (leaving !== undefined) return this.cleanUp(claim, leaving);
    const dataSource = claimDataSource(claim);
    if (dataSource.kind === 'populator') return this.leaveToPopulator(claim, dataSource);
    const cls = await this.storageClass(claim);
    const plugin = cls ? this.d.plugins.byProvisioner(cls.provisioner) : undefined;
    if (!cls || !plugin) return this.notOurs(claim, cls);
    if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !claim.metadata.annotations?.[ANN_SELECTED_NODE]) {
      return this.cleanUp(claim, 'waiting for a node to be selected');
    }
    const attributesClass = await this.attributesClass(claim);
    const plan = planProvision({ claim, storageClass: cls, plugin, clusterName: this.d.clusterName, attributesClass });
    if (!plan.ok) return this.refuse(claim, plan.message);
    const content = await resolveContentSource(this.d, claim, cls, plugin, dataSource);
    if (!content.ok) return this.refuse(claim, msgProvisionFailed(cls.metadata.name ?? '', content.message), content.waiting === true);
    const request = content.value ? { ...plan.request, contentSource: content.value } : plan.request;
    return this.provision(claim, cls, plugin, request);
  }

  /** The claim cannot be provisioned now: one event, whatever an earlier attempt left cleaned up, and a backoff. */
  private async refuse(claim: PersistentVolumeClaim, message: string, waiting = false): Promise<OperationOutcome> {
    this.d.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, message);
    this.d.log.info({ claim: this.key, why: message, waiting }, 'provisioning refused');
    const cleaned = await this.cleanUp(claim, 'the claim cannot be provisioned');
    return cleaned === 'succeeded' ? 'failed' : cleaned;
  }

  /**
   * The clone's source could not be protected, so its copy never started: no plugin call was made
   * since this clone was last recorded on the source (an entry outlives every call), so there is
   * no backing volume to delete — only the intent to release.
   */
  private async notStarted(claim: PersistentVolumeClaim, message: string): Promise<OperationOutcome> {
    this.d.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, message);
    this.d.log.info({ claim: this.key, why: message }, 'provisioning refused');
    await releaseIntent(this.d.ctx.api, this.target.namespace, this.target.name, this.target.uid, { signal: this.h.stopSignal, current: claim });
    return 'failed';
  }

  /** A populator's claim (KEP-1495): no volume from us, no event, nothing to retry. */
  private async leaveToPopulator(claim: PersistentVolumeClaim, source: ClaimDataSource): Promise<OperationOutcome> {
    this.d.log.debug({ claim: this.key, dataSource: source }, 'data source is not handled by the provisioner; assuming an external populator will provision the volume');
    return hasProvisioningFinalizer(claim) ? this.cleanUp(claim, 'the claim is left to its volume populator') : 'succeeded';
  }

  private async storageClass(claim: PersistentVolumeClaim): Promise<StorageClass | undefined> {
    const name = storageClassOfClaim(claim) ?? '';
    if (name === '') return undefined;
    return this.d.ctx.classes.get(name) ?? (await this.d.ctx.api.getStorageClass(name));
  }

  /** The VolumeAttributesClass the claim names, read live (the controller keeps no cache of them). */
  private async attributesClass(claim: PersistentVolumeClaim): Promise<VolumeAttributesClass | undefined> {
    const name = claim.spec.volumeAttributesClassName ?? '';
    return name === '' ? undefined : await this.d.ctx.api.getVolumeAttributesClass?.(name);
  }

  /** The class is gone or names a provisioner we do not run: not ours to provision (the binder routes it). */
  private async notOurs(claim: PersistentVolumeClaim, cls: StorageClass | undefined): Promise<OperationOutcome> {
    if (!hasProvisioningFinalizer(claim)) return 'succeeded';
    const why = cls ? `provisioner "${cls.provisioner}" is not served here` : 'the storage class is gone';
    return this.cleanUp(claim, why);
  }

  private async provision(
    claim: PersistentVolumeClaim,
    cls: StorageClass,
    plugin: VolumePlugin,
    request: ProvisionRequest,
  ): Promise<OperationOutcome> {
    this.h.stopSignal.throwIfAborted();
    const intended = await recordIntent(this.d.ctx.api, claim, plugin.name);
    const unprotected = await this.protectSource(intended, request);
    if (unprotected !== undefined) return this.notStarted(intended, msgProvisionFailed(cls.metadata.name ?? '', unprotected));
    this.d.log.info({ claim: this.key, pv: request.pvName, plugin: plugin.name, backingName: request.backingName, source: request.contentSource?.kind }, 'provisioning');
    // Announced only if the plugin is slow (see ProvisionerOptions.provisioningEventAfterMs).
    const announce = setTimeout(() => {
      if (!this.h.stopSignal.aborted) this.d.ctx.events.event(intended, 'Normal', EventReason.Provisioning, msgProvisioning(plugin.name, this.key));
    }, this.d.provisioningEventAfterMs);
    announce.unref();
    let provisioned: ProvisionedVolume | undefined;
    let failure: unknown;
    try {
      provisioned = await measured(this.d.metrics, plugin.name, 'provision', () => provisionFromRequest(plugin, { ...request, signal: this.h.signal }), {
        key: this.key,
        storageClass: cls.metadata.name ?? '',
        source: claim.spec.dataSource?.kind ?? '',
      });
    } catch (err) {
      failure = err;
    } finally {
      clearTimeout(announce);
    }
    // Fresh read: the claim may have been deleted (or bound elsewhere) while the plugin worked.
    const fresh = await this.liveClaim();
    if (!fresh) return this.orphaned(intended, 'the claim disappeared during provisioning');
    const leaving = leavingReason(fresh, request.pvName);
    if (leaving !== undefined) return this.cleanUp(fresh, leaving);
    if (!provisioned) {
      const detail = errorText(failure);
      this.d.ctx.events.event(fresh, 'Warning', EventReason.ProvisioningFailed, msgProvisionFailed(cls.metadata.name ?? '', detail));
      this.d.log.warn({ claim: this.key, plugin: plugin.name, err: detail }, 'provisioning failed');
      // The backend may still be making it: the next attempt repeats the same call (same name,
      // same node), and only a final answer — or the claim leaving — cleans up.
      if (failure instanceof PluginError && failure.code === 'InProgress') return 'failed';
      await this.cleanUp(fresh, 'provisioning failed', true);
      return 'failed';
    }
    return this.publish(fresh, cls, plugin, request, provisioned);
  }

  /**
   * A clone's source gets its cloning protection (after our intent, before the copy). Returns why
   * the copy must not start: the source went, or began to be deleted before this clone was recorded.
   */
  private async protectSource(claim: PersistentVolumeClaim, request: ProvisionRequest): Promise<string | undefined> {
    const sourceName = cloneSourceName(claim);
    if (request.contentSource?.kind !== 'volume' || sourceName === undefined) return undefined;
    const clone = { name: this.target.name, uid: this.target.uid };
    const result = await protectCloneSource(this.d.ctx.api, this.target.namespace, sourceName, clone, this.h.stopSignal);
    if (result === 'protected') return undefined;
    const detail = result === 'gone' ? msgSourceClaimNotFound(sourceName, this.target.namespace) : msgSourceClaimDeleting(sourceName);
    return msgSourceProblem(CLAIM_KIND, sourceName, detail);
  }

  private async publish(
    claim: PersistentVolumeClaim,
    cls: StorageClass,
    plugin: VolumePlugin,
    request: ProvisionRequest,
    provisioned: ProvisionedVolume,
  ): Promise<OperationOutcome> {
    const pv = provisionedVolume({ claim, storageClass: cls, plugin, request, provisioned });
    const saved = await savePersistentVolume(this.d, claim, pv, this.h.stopSignal);
    if (!saved) {
      await this.cleanUp(claim, 'the PV object could not be created');
      return 'failed';
    }
    this.d.ctx.events.event(claim, 'Normal', EventReason.ProvisioningSucceeded, msgProvisioned(request.pvName, plugin.name));
    return this.published(claim, saved === 'exists' ? undefined : saved, request.pvName, 'volume provisioned');
  }

  /**
   * The PV exists: the backing volume is accounted for, so the intent can go — in the same claim
   * write as the claim's side of the binding when `pv` (if known) is reserved for this very claim.
   */
  private async published(claim: PersistentVolumeClaim, pv: PersistentVolume | undefined, pvName: string, why: string): Promise<OperationOutcome> {
    this.h.stopSignal.throwIfAborted();
    if (hasProvisioningFinalizer(claim)) {
      // Before the intent goes (clone-protection.ts: an entry never outlives its clone's intent).
      await releaseCloneOf(this.d.ctx.api, claim, this.h.stopSignal);
      const ours = pv !== undefined && pv.spec.claimRef?.uid === this.target.uid;
      await releaseIntent(this.d.ctx.api, this.target.namespace, this.target.name, this.target.uid, {
        signal: this.h.stopSignal,
        current: claim,
        ...(ours ? { bindTo: pvName } : {}),
      });
      // Routine once per provisioned volume ('provisioned volume saved' was logged at info).
      this.d.log.debug({ claim: this.key, pv: pvName, why }, 'provisioning intent released');
    }
    this.d.ctx.enqueueVolume(pvName);
    this.d.ctx.enqueueClaim(keyOf(claim));
    return 'succeeded';
  }

  private async cleanUp(claim: PersistentVolumeClaim, why: string, dropSelectedNode = false): Promise<OperationOutcome> {
    if (!hasProvisioningFinalizer(claim) && !dropSelectedNode) return 'succeeded';
    const done = await cleanUpClaimVolume(this.d, claim, { why, dropSelectedNode, signal: this.h.stopSignal });
    return done ? 'succeeded' : 'failed';
  }

  /** Our finalizer was stripped and the claim is gone: nobody will ask again, so delete now. */
  private async orphaned(claim: PersistentVolumeClaim, why: string): Promise<OperationOutcome> {
    const done = await cleanUpClaimVolume(this.d, claim, { why, signal: this.h.stopSignal });
    return done ? 'succeeded' : 'failed';
  }
}
