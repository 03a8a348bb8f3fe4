/**
 * Recycle (upstream `recycleVolumeOperation`): the plugin scrubs the volume's contents (never following a
 * symlink out of it), then the PV is unbound and becomes Available again. A PV the controller
 * bound loses its whole claimRef; one a user pre-bound keeps the claim's name (uid cleared), so
 * it stays reserved for that claim name.
 */
import type { PersistentVolume, Pod } from '@pv-controller/kube/types.js';
import { volumeWithoutBinding } from '@pv-controller/kube/volume-helpers.js';
import { withoutReleaseMarks } from './released-ttl.js';
import { withoutAttempts } from './attempts.js';
import { MSG_RECYCLED } from './events.js';
import { runCountedAttempt, type ReclaimOperation } from './outcome.js';
import { measured } from '../runtime/operation-metrics.js';
import { updateFresh, withPhase, type ReclaimerDeps } from './deps.js';
import { EventReason } from '../runtime/event-reasons.js';
import { canRecycle } from '../../plugins/api/capabilities/recycle.js';

function isTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * Pods (`namespace/name`) that still use the claim the PV was released from. When a new claim
 * with that name exists, the pods are taken to use the new one (as upstream) and none is named.
 */
export async function podsUsingReleasedClaim(s: ReclaimerDeps, pv: PersistentVolume): Promise<string[]> {
  const ref = pv.spec.claimRef;
  if (!ref?.name) return [];
  const namespace = ref.namespace ?? '';
  if (s.ctx.claims.get(`${namespace}/${ref.name}`)) return [];
  const pods = await s.ctx.api.listPods(namespace);
  return pods
    .filter((p) => !isTerminated(p) && (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === ref.name))
    .map((p) => `${namespace}/${p.metadata.name ?? ''}`)
    .sort();
}

/** The PV's spec after a recycle or a reuse: claimRef gone or reduced to the name; retry marks, release deadline and reuse request removed. */
function unboundSpec(pv: PersistentVolume): PersistentVolume {
  return withoutReleaseMarks(volumeWithoutBinding(withoutAttempts(pv)));
}

/** Unbinds the PV (only from the claim it was released from) and marks it Available; false when it had changed meanwhile. */
export async function makeAvailable(s: ReclaimerDeps, pv: PersistentVolume, why: string): Promise<boolean> {
  const releasedFrom = pv.spec.claimRef?.uid;
  const unbound = await updateFresh(s, pv, 'spec', (fresh) =>
    fresh.spec.claimRef?.uid === releasedFrom ? unboundSpec(fresh) : undefined,
  );
  if (!unbound) return false;
  await updateFresh(s, unbound, 'status', (fresh) =>
    fresh.status?.phase === 'Available' ? undefined : withPhase(fresh, 'Available', ''),
  );
  s.log.info({ pv: pv.metadata.name, from: pv.status?.phase ?? '', to: 'Available', why }, 'volume phase changed');
  return true;
}

export const runRecycle: ReclaimOperation = async (s, plugin, pv, count, signal) => {
  const recycled = await runCountedAttempt(s, pv, 'recycle', count, signal, async () => {
    const recycler = canRecycle(plugin) ? plugin : undefined;
    if (!recycler) throw new Error(`plugin ${plugin.name} cannot recycle`);
    await measured(s.metrics, plugin.name, 'recycle', () => recycler.recycle(pv, signal));
  });
  if (!recycled) return;
  s.ctx.events.event(pv, 'Normal', EventReason.VolumeRecycled, MSG_RECYCLED);
  s.log.info({ pv: pv.metadata.name, plugin: plugin.name }, 'volume recycled');
  await makeAvailable(s, pv, 'recycled');
};
