/**
 * `pvc-unused`: keeps the `Unused` condition (condition.ts) on every Bound claim, as
 * kube-controller-manager 1.37's pvc-protection controller does with its
 * PersistentVolumeClaimUnusedSinceTime feature (beta, on by default). Its own module so that
 * `--controllers=-pvc-unused` turns it off (upstream: `--feature-gates=PersistentVolumeClaimUnusedSinceTime=false`)
 * without turning off the finalizer work of pvc-protection.
 *
 * A claim is decided on the newest copy the store holds and the pods the informer has (the
 * workers start only once it has synced; a pod change re-queues the claims it names, so a pod
 * the cache had not seen yet flips the condition back as soon as it arrives). Upstream also lists
 * the namespace's pods live before it calls a claim unused; that list is left out here, as it
 * would make every claim's sync cost its namespace's pods. One status write per transition,
 * guarded by the resourceVersion read: a 409 is decided again.
 */
import type { PersistentVolumeClaim, Pod } from '@pv-controller/kube/types.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import { rfc3339Seconds, unusedConditionOf, withUnusedCondition } from './condition.js';
import { PodClaimIndex, podKeepsClaimInUse } from './pods.js';
import { claimKeysOfPod } from '../protection/pods.js';

export const PVC_UNUSED_CONTROLLER = 'pvc-unused';

/** Whether a non-terminated pod the cache holds references the claim (through the index). */
export function claimInUse(ctx: ControllerContext, index: PodClaimIndex, claim: PersistentVolumeClaim): boolean {
  return index.podsOf(keyOf(claim)).some((podKey) => {
    const pod = ctx.pods?.get(podKey);
    return pod !== undefined && podKeepsClaimInUse(pod, claim);
  });
}

/** One claim: the condition written when its status is not the one the pods say. */
export async function syncUnusedCondition(ctx: ControllerContext, env: Pick<ModuleEnv, 'logger' | 'unusedConditions'>, index: PodClaimIndex, given: PersistentVolumeClaim): Promise<SyncResult> {
  const claim = newerCopyOf(given, ctx.claims.get(keyOf(given)));
  const key = keyOf(claim);
  const inUse = claimInUse(ctx, index, claim);
  const next = withUnusedCondition(claim, inUse, rfc3339Seconds(ctx.now()));
  if (!next) return DONE;
  try {
    await ctx.api.updateClaimStatus(next);
    env.unusedConditions?.unusedConditionSync('success');
  } catch (err) {
    env.unusedConditions?.unusedConditionSync('error');
    if (isConflict(err) || isNotFound(err)) return { kind: 'retry', reason: isConflict(err) ? 'conflict' : 'not found' };
    const message = err instanceof Error ? err.message : String(err);
    env.logger.warn({ claim: key, err: message }, 'could not write the Unused condition');
    return { kind: 'retry', reason: message };
  }
  const from = unusedConditionOf(claim)?.status ?? 'absent';
  const to = inUse ? 'False' : 'True';
  env.logger.info({ claim: key, condition: 'Unused', from, to, why: inUse ? 'a pod references the claim' : 'no pod that has not terminated references the claim' }, 'claim usage changed');
  return DONE;
}

export function pvcUnusedModule(): ControllerModule {
  return {
    name: PVC_UNUSED_CONTROLLER,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const index = new PodClaimIndex();
      env.changes.pods?.onChange((podKey, pod, prev) => {
        index.update(podKey, pod);
        // The runtime re-queues the claims a pod names by persistentVolumeClaim; those of its
        // generic ephemeral volumes too, here (the queue collapses the repeats).
        for (const key of claimKeysOfPod((pod ?? prev) as Pod)) ctx.enqueueClaim(key);
      });
      return {
        // Pods the store held before this module subscribed (none in the controller: modules
        // are built before the informers start) are indexed once, before the first sync.
        start: () => {
          for (const pod of ctx.pods?.list() ?? []) index.update(keyOf(pod), pod);
        },
        syncClaim: (claim) => syncUnusedCondition(ctx, env, index, claim),
      };
    },
  };
}
