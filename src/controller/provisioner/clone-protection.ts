/**
 * The source of a clone is protected from deletion while the copy runs: external-provisioner's
 * `provisioner.storage.kubernetes.io/cloning-protection` finalizer on the source claim, written
 * (durably, after the clone's own intent finalizer) before the plugin is called.
 *
 * external-provisioner removes it when its cache shows no Pending claim cloning the source; a
 * clone that has just added itself (its write found the finalizer already there, so it wrote
 * nothing) can be missed by that look and lose its protection mid-copy. Here every clone writes
 * its own entry into the source's `pv-controller.io/clones-in-progress` and takes it out again,
 * each write guarded by the source's resourceVersion; whoever takes out the last entry removes the
 * finalizer in the same write. Two clones of one source therefore always see each other.
 *
 * Order, for crash safety: entry added after the clone's intent finalizer, removed before it. An
 * entry whose clone claim is gone, is another incarnation, or no longer carries the intent can
 * thus belong to no running copy; such entries are dropped whenever the source is written.
 */
import { ANN_CLONES_IN_PROGRESS, FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import { FINALIZER_CLONING_PROTECTION } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ApiClient } from '../runtime/context.js';
import { cloneSourceName } from './data-source.js';

export interface CloneRef {
  name: string;
  uid: string;
}

const WRITE_ATTEMPTS = 5;
/** More entries than this are not read (a hand-edited value): the finalizer then stays. */
const MAX_ENTRIES = 1000;

/** The clones in progress recorded on a source claim (malformed entries are skipped). */
export function clonesInProgress(source: PersistentVolumeClaim): CloneRef[] {
  const value = source.metadata.annotations?.[ANN_CLONES_IN_PROGRESS] ?? '';
  const out: CloneRef[] = [];
  for (const entry of value.split(',', MAX_ENTRIES)) {
    const slash = entry.indexOf('/');
    if (slash <= 0 || slash === entry.length - 1) continue;
    out.push({ name: entry.slice(0, slash), uid: entry.slice(slash + 1) });
  }
  return out;
}

const hasFinalizer = (claim: PersistentVolumeClaim): boolean => (claim.metadata.finalizers ?? []).includes(FINALIZER_CLONING_PROTECTION);

/** The source with `clones` recorded: the finalizer while any remain, neither annotation nor finalizer once none do. */
function withClones(source: PersistentVolumeClaim, clones: CloneRef[]): PersistentVolumeClaim {
  const next = structuredClone(source);
  const annotations = { ...next.metadata.annotations };
  if (clones.length > 0) {
    annotations[ANN_CLONES_IN_PROGRESS] = clones.map((c) => `${c.name}/${c.uid}`).join(',');
    if (!hasFinalizer(next)) next.metadata.finalizers = [...(next.metadata.finalizers ?? []), FINALIZER_CLONING_PROTECTION];
  } else {
    delete annotations[ANN_CLONES_IN_PROGRESS];
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_CLONING_PROTECTION);
  }
  next.metadata.annotations = annotations;
  return next;
}

/** Retries `step` on a 409 (it re-reads the source each time). */
async function onNewestSource<T>(step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await step();
    } catch (err) {
      if (!isConflict(err) || attempt >= WRITE_ATTEMPTS) throw err;
    }
  }
}

export type ProtectResult = 'protected' | 'gone' | 'deleting';

/**
 * Records `clone` on the source claim `namespace/name` and makes sure the finalizer is there.
 * 'deleting': the source is being deleted and this clone was not yet recorded, so it must not start.
 */
export function protectCloneSource(api: ApiClient, namespace: string, name: string, clone: CloneRef, signal?: AbortSignal): Promise<ProtectResult> {
  return onNewestSource(async () => {
    const live = await api.getClaim(namespace, name);
    if (!live) return 'gone';
    const clones = clonesInProgress(live);
    const recorded = clones.some((c) => c.uid === clone.uid);
    if (recorded && hasFinalizer(live)) return 'protected';
    if (!recorded && live.metadata.deletionTimestamp) return 'deleting';
    signal?.throwIfAborted();
    await api.updateClaim(withClones(live, recorded ? clones : [...clones, clone]));
    return 'protected';
  }, signal);
}

/** Whether the clone an entry names may still be copying: its claim is there, the same one, with its intent. */
async function mayStillCopy(api: ApiClient, namespace: string, clone: CloneRef): Promise<boolean> {
  const claim = await api.getClaim(namespace, clone.name);
  return claim?.metadata.uid === clone.uid && (claim.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING);
}

/**
 * Takes `cloneUid`'s entry (if any) off the source claim `namespace/name`, drops entries no copy
 * can be behind, and removes the finalizer with the last entry. Nothing is written when nothing
 * changes; a source without our annotation is left alone (its finalizer is not ours).
 */
export function releaseCloneSource(api: ApiClient, namespace: string, name: string, cloneUid: string | undefined, signal?: AbortSignal): Promise<void> {
  return onNewestSource(async () => {
    const live = await api.getClaim(namespace, name);
    if (!live || live.metadata.annotations?.[ANN_CLONES_IN_PROGRESS] === undefined) return;
    const clones = clonesInProgress(live);
    const remaining: CloneRef[] = [];
    for (const clone of clones) {
      if (clone.uid !== cloneUid && (await mayStillCopy(api, namespace, clone))) remaining.push(clone);
    }
    if (remaining.length === clones.length && (remaining.length > 0 || !hasFinalizer(live))) return;
    signal?.throwIfAborted();
    await api.updateClaim(withClones(live, remaining));
  }, signal);
}

/** When `clone` is a clone of another claim: its entry taken off that source (releaseCloneSource). */
export async function releaseCloneOf(api: ApiClient, clone: PersistentVolumeClaim, signal?: AbortSignal): Promise<void> {
  const sourceName = cloneSourceName(clone);
  if (sourceName === undefined) return;
  await releaseCloneSource(api, clone.metadata.namespace ?? '', sourceName, clone.metadata.uid, signal);
}
