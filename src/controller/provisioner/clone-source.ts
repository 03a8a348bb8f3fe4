/**
 * Clone: the claim a new claim copies, and its PV, read live, with external-provisioner's
 * getPVCSource checks (Bound, not being deleted, one StorageClass, a volume of the same plugin
 * bound to that very claim, the same volumeMode, a request at least the source's). The source is
 * protected by clone-protection.ts while the copy runs.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { claimRequestBytes, storageClassOfClaim, volumeModeOf } from '@pv-controller/kube/volume-helpers.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { ApiClient } from '../runtime/context.js';
import { clonesInProgress } from './clone-protection.js';
import * as m from './data-source-messages.js';
import type { SourceCheck } from './restore-source.js';

export interface CloneSource {
  claim: PersistentVolumeClaim;
  pv: PersistentVolume;
}

const refuse = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** The source claim's problems that need no PV: phase, deletion, classes, size. */
function sourceClaimProblem(claim: PersistentVolumeClaim, source: PersistentVolumeClaim): string | undefined {
  const name = source.metadata.name ?? '';
  const phase = source.status?.phase ?? '';
  if (phase !== 'Bound') return m.msgSourceClaimNotBound(name, phase);
  // A clone already under way when the deletion began goes on: the source waits for it.
  if (source.metadata.deletionTimestamp && !clonesInProgress(source).some((c) => c.uid === claim.metadata.uid)) {
    return m.msgSourceClaimDeleting(name);
  }
  const sourceClass = storageClassOfClaim(source) ?? '';
  const wantedClass = storageClassOfClaim(claim) ?? '';
  if (sourceClass === '') return m.msgSourceClassEmpty(name);
  if (wantedClass === '') return m.msgClaimClassEmpty(claim.metadata.name ?? '');
  if (sourceClass !== wantedClass) return m.msgCloneOtherClass(sourceClass, wantedClass);
  const requested = claimRequestBytes(claim);
  const sourceSize = claimRequestBytes(source);
  if (requested < sourceSize) return m.msgCloneTooSmall(requested, sourceSize);
  if (!source.spec.volumeName) return m.msgSourceNoVolume(name);
  return undefined;
}

/** The source PV's problems: ours to copy, bound to that very claim, the same volumeMode. */
function sourceVolumeProblem(claim: PersistentVolumeClaim, source: PersistentVolumeClaim, pv: PersistentVolume, plugin: VolumePlugin): string | undefined {
  const ref = pv.spec.claimRef;
  const boundToSource = ref?.uid === source.metadata.uid && ref?.namespace === source.metadata.namespace && ref?.name === source.metadata.name;
  if (!plugin.handles(pv) || !boundToSource || pv.status?.phase !== 'Bound') return m.MSG_SOURCE_VOLUME_INVALID;
  const sourceMode = volumeModeOf(pv);
  const wantedMode = volumeModeOf(claim);
  return sourceMode === wantedMode ? undefined : m.msgCloneModeMismatch(sourceMode, wantedMode);
}

/** Reads the source claim `name` (in the claim's namespace) and its PV live and checks them. */
export async function checkClone(
  api: ApiClient,
  claim: PersistentVolumeClaim,
  plugin: VolumePlugin,
  name: string,
): Promise<SourceCheck<CloneSource>> {
  const namespace = claim.metadata.namespace ?? '';
  const source = await api.getClaim(namespace, name);
  if (!source) return refuse(m.msgSourceClaimNotFound(name, namespace));
  const claimProblem = sourceClaimProblem(claim, source);
  if (claimProblem !== undefined) return refuse(claimProblem);
  const pv = await api.getVolume(source.spec.volumeName ?? '');
  if (!pv) return refuse(m.MSG_SOURCE_VOLUME_INVALID);
  const volumeProblem = sourceVolumeProblem(claim, source, pv, plugin);
  if (volumeProblem !== undefined) return refuse(volumeProblem);
  return { ok: true, value: { claim: source, pv } };
}

/** The source PV as it is now, without the checks (a cleanup repeating the create to learn its id). */
export async function cloneSourceVolume(api: ApiClient, claim: PersistentVolumeClaim, name: string): Promise<PersistentVolume | undefined> {
  const source = await api.getClaim(claim.metadata.namespace ?? '', name);
  const volumeName = source?.spec.volumeName ?? '';
  return volumeName === '' ? undefined : api.getVolume(volumeName);
}
