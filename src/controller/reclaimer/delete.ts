/**
 * Delete (upstream `deleteVolumeOperation`): the plugin deletes the backing volume, then our deletion
 * finalizer is removed and the PV object deleted (uid precondition). The plugin re-checks the
 * PV's location against its *current* roots at this moment (safe-path.ts); a PV pointing
 * anywhere else is refused before anything is touched, and that refusal is a failed attempt.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_ARCHIVE_RETENTION, ANN_PROVISIONED_BY, FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import { csiMigrationTarget } from '@pv-controller/kube/csi-migration.js';
import { isNotFound } from '@pv-controller/kube/errors.js';
import { DurationError, parseDuration } from '../duration.js';
import { storageClassOfVolume } from '@pv-controller/kube/volume-helpers.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import { backingName } from '../../plugins/naming.js';
import { runCountedAttempt, type ReclaimOperation } from './outcome.js';
import { measured } from '../runtime/operation-metrics.js';
import { updateFresh, type ReclaimerDeps } from './deps.js';
import { isBackingDeleted, withBackingDeleted } from './attempts.js';

const IN_TREE_PREFIX = 'kubernetes.io/';

/**
 * True when the PV belongs to a deleter outside this process (upstream's external deleter): it
 * was provisioned by a provisioner we do not serve whose name is not in-tree, or it is a CSI
 * volume of a driver this process does not drive (`--csi-address`). A migrated in-tree name we do
 * not serve counts as external too: on a migrated cluster external-provisioner provisions such a
 * class, writes `provisioned-by: kubernetes.io/aws-ebs` with the in-tree source, and deletes the
 * volume itself (kube-controller-manager leaves it to that deleter; marking it Failed would stop it).
 */
export function hasExternalDeleter(s: ReclaimerDeps, pv: PersistentVolume): boolean {
  if (pv.spec.csi !== undefined) return !drivesCsiVolume(s, pv);
  const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
  if (provisioner === undefined || s.plugins.byProvisioner(provisioner)) return false;
  return !provisioner.startsWith(IN_TREE_PREFIX) || csiMigrationTarget(provisioner) !== undefined;
}

/** A CSI volume whose driver is one of ours: the plugin registered under the driver's name owns it. */
function drivesCsiVolume(s: ReclaimerDeps, pv: PersistentVolume): boolean {
  const driver = pv.spec.csi?.['driver'];
  if (typeof driver !== 'string') return false;
  const plugin = s.plugins.byProvisioner(driver);
  return plugin !== undefined && plugin.name === driver && plugin.handles(pv);
}

/**
 * Our finalizer, external-provisioner's (kept on a migrated in-tree PV, finalizers.ts: the backing
 * volume it protects is gone) and pv-protection's, off a PV whose backing volume is gone;
 * undefined when none is there. pv-protection's own rule is "not while the PV is Bound" (upstream
 * pvprotection), and our pv-protection sync leaves a PV being deleted that still carries our
 * finalizer to us, so the two finalizers go in one write instead of two racing ones.
 */
function withoutDeletionFinalizers(pv: PersistentVolume): PersistentVolume | undefined {
  const drop = (f: string): boolean =>
    f === FINALIZER_PV_CONTROLLER || f === FINALIZER_EXTERNAL_PROVISIONER || (f === FINALIZER_PV_PROTECTION && pv.status?.phase !== 'Bound');
  const finalizers = pv.metadata.finalizers ?? [];
  if (!finalizers.some(drop)) return undefined;
  const { finalizers: _dropped, ...metadata } = pv.metadata;
  const kept = finalizers.filter((f) => !drop(f));
  return { ...pv, metadata: kept.length > 0 ? { ...metadata, finalizers: kept } : metadata };
}

/**
 * Deletes the PV object (uid precondition), then takes the deletion finalizers off the object
 * the DELETE marked, which removes it: two writes (upstream: finalizer, delete, pv-protection's
 * finalizer). The DELETE goes first so pv-protection, seeing the PV live without its finalizer,
 * never puts it back. Already gone ⇒ done.
 */
export async function finishDeletion(s: ReclaimerDeps, pv: PersistentVolume): Promise<void> {
  const name = pv.metadata.name ?? '';
  const uid = pv.metadata.uid;
  let gone = false;
  if (!pv.metadata.deletionTimestamp) {
    try {
      await s.ctx.api.deleteVolume(name, uid);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      gone = true;
    }
  }
  if (!gone) {
    // The client records the marked object in the store; an older copy only costs a 409 and a live read.
    await updateFresh(s, newerCopyOf(pv, s.ctx.volumes.get(name)), 'spec', withoutDeletionFinalizers);
  }
  if (uid) s.backingDeleted.delete(uid);
  s.log.info({ pv: name, why: 'reclaim policy Delete' }, 'volume deleted');
}

function classParameters(s: ReclaimerDeps, pv: PersistentVolume): Record<string, string> | undefined {
  const className = storageClassOfVolume(pv);
  return className === '' ? undefined : s.ctx.classes.get(className)?.parameters;
}

/** The class's archive retention; one that is not a duration keeps archives until removed by hand (and says so). */
function archiveRetention(s: ReclaimerDeps, pv: PersistentVolume): { archiveRetentionMs?: number } {
  const className = storageClassOfVolume(pv);
  const text = className === '' ? undefined : s.ctx.classes.get(className)?.metadata.annotations?.[ANN_ARCHIVE_RETENTION];
  if (text === undefined) return {};
  try {
    const ms = parseDuration(text);
    if (ms >= 0) return { archiveRetentionMs: ms };
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
  }
  s.log.warn({ pv: pv.metadata.name, storageClass: className, [ANN_ARCHIVE_RETENTION]: text.slice(0, 64) }, 'archive retention is not a Go duration: an archive is kept until removed by hand');
  return {};
}

export const runDelete: ReclaimOperation = async (s, plugin, pv, count, signal) => {
  const name = pv.metadata.name ?? '';
  const deleted = await runCountedAttempt(s, pv, 'delete', count, signal, () =>
    measured(
      s.metrics,
      plugin.name,
      'delete',
      () =>
        plugin.delete({
          backingName: backingName(s.clusterName, name, plugin.maxBackingNameLength),
          pv,
          parameters: classParameters(s, pv),
          ...archiveRetention(s, pv),
          signal,
        }),
      { key: name, storageClass: storageClassOfVolume(pv) },
    ),
  );
  if (!deleted) return;
  if (pv.metadata.uid) s.backingDeleted.add(pv.metadata.uid);
  // Routine, once per deleted volume: 'volume deleted' (info) follows; the plugin step is debug.
  s.log.debug({ pv: name, plugin: plugin.name }, 'backing volume deleted');
  // Recorded on the PV before it is deleted: a lost answer or a restart from here on costs no attempt.
  const marked = await updateFresh(s, pv, 'spec', (fresh) => (isBackingDeleted(fresh) ? undefined : withBackingDeleted(fresh, s.ctx.now())));
  await finishDeletion(s, marked ?? pv);
};
