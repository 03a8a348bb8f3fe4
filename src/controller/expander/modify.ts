/**
 * Changing a bound claim's VolumeAttributesClass modifies its volume, as external-resizer's
 * modify controller does (KEP-3751), each step recorded before the next:
 * 1. the class is read live; one that does not exist leaves the claim Pending (retried);
 * 2. the target is recorded on the claim (modifyVolumeStatus InProgress, ModifyingVolume) before
 *    the plugin is asked, so a resumed modification asks for the same class again, and the
 *    plugin, which applies attributes idempotently, changes nothing twice;
 * 3. the plugin applies the class's parameters (timed as `modify_volume`);
 * 4. the PV names the class, then the claim does (status.currentVolumeAttributesClassName).
 * A failure the plugin calls final marks the target Infeasible until the claim names another class.
 */
import type { PersistentVolume, PersistentVolumeClaim, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { PluginError } from '../../plugins/api/errors.js';
import { canModify } from '../../plugins/api/capabilities/modify.js';
import { EventReason } from '../runtime/event-reasons.js';
import { measured } from '../runtime/operation-metrics.js';
import type { OperationOutcome } from '../runtime/operations.js';
import { markModifyFailed, markModifyFinished, markModifyStatus } from './claim-status.js';
import { msgInTreeVolume, msgModified, msgModifying, msgNoModify, msgVacDriver } from './events.js';
import type { ExpanderOperation } from './operation.js';

export type ModifyStep = { kind: 'none' } | { kind: 'modify'; target: string };

export function nextModifyStep(claim: PersistentVolumeClaim): ModifyStep {
  const target = claim.spec.volumeAttributesClassName ?? '';
  const pending = claim.status?.modifyVolumeStatus;
  if (target === '') return { kind: 'none' };
  if (target === claim.status?.currentVolumeAttributesClassName && !pending) return { kind: 'none' };
  if (pending?.status === 'Infeasible' && pending.targetVolumeAttributesClassName === target) return { kind: 'none' };
  return { kind: 'modify', target };
}

export async function runModify(s: ExpanderOperation, plugin: VolumePlugin, pvName: string, target: string): Promise<OperationOutcome> {
  const claim = s.claim();
  const pv = s.volume(pvName);
  if (!claim || !pv) return 'succeeded';
  const vac = await s.d.ctx.api.getVolumeAttributesClass?.(target);
  if (!vac) {
    const pending = claim.status?.modifyVolumeStatus;
    if (pending?.status !== 'Pending' || pending.targetVolumeAttributesClassName !== target) {
      await s.writeClaimStatus(markModifyStatus(claim, 'Pending', target, s.now()));
    }
    return 'failed';
  }
  const started = await recordTarget(s, claim, target);
  try {
    await measured(s.d.metrics, plugin.name, 'modify_volume', () => modifyWith(plugin, pv, vac, s.handle.signal));
  } catch (err) {
    return recordFailure(s, started, err);
  }
  const volume = s.volume(pvName, pv) ?? pv;
  if (volume.spec.volumeAttributesClassName !== target) {
    await s.writeVolume({ ...structuredClone(volume), spec: { ...structuredClone(volume.spec), volumeAttributesClassName: target } });
  }
  const saved = await s.writeClaimStatus(markModifyFinished(s.claim(started) ?? started, target));
  s.event(saved, 'Normal', EventReason.VolumeModifySuccessful, msgModified(saved.metadata.name ?? '', target));
  s.d.log.info({ claim: s.key, pv: pvName, vac: target }, 'volume modified');
  return 'succeeded';
}

async function recordTarget(s: ExpanderOperation, claim: PersistentVolumeClaim, target: string): Promise<PersistentVolumeClaim> {
  const pending = claim.status?.modifyVolumeStatus;
  if (pending?.status === 'InProgress' && pending.targetVolumeAttributesClassName === target) return claim;
  const saved = await s.writeClaimStatus(markModifyStatus(claim, 'InProgress', target, s.now()));
  s.event(saved, 'Normal', EventReason.VolumeModify, msgModifying(saved.metadata.name ?? '', target));
  return saved;
}

/** The plugin's modify capability, for a class meant for it; anything else fails for good. */
function modifyWith(plugin: VolumePlugin, pv: PersistentVolume, vac: VolumeAttributesClass, signal: AbortSignal): Promise<void> {
  const name = vac.metadata.name ?? '';
  // A class may name the in-tree plugin or the CSI driver it migrated to.
  if (vac.driverName !== plugin.name && vac.driverName !== plugin.csiDriver) {
    return Promise.reject(new PluginError('InvalidParameter', msgVacDriver(name, vac.driverName, plugin.name), false));
  }
  if (!canModify(plugin)) return Promise.reject(new PluginError('NotSupported', msgNoModify(plugin.name), false));
  if (pv.spec.csi === undefined) return Promise.reject(new PluginError('InvalidParameter', msgInTreeVolume(pv.metadata.name ?? ''), false));
  return plugin.modify({ pv, attributes: { ...(vac.parameters ?? {}) }, signal });
}

async function recordFailure(s: ExpanderOperation, claim: PersistentVolumeClaim, err: unknown): Promise<OperationOutcome> {
  if (s.handle.stopSignal.aborted) return 'stopped';
  const final = !(err instanceof PluginError && err.retryable);
  const message = err instanceof Error ? err.message : String(err);
  const saved = await s.writeClaimStatus(markModifyFailed(s.claim(claim) ?? claim, message, final, s.now()));
  s.event(saved, 'Warning', EventReason.VolumeModifyFailed, message);
  s.d.log.warn({ claim: s.key, final, err: message }, 'volume modification failed');
  return final ? 'succeeded' : 'failed';
}
