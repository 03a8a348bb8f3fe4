/**
 * DELETE semantics: preconditions, finalizers (set deletionTimestamp and wait for them), the
 * collection form, and namespace deletion taking its contents along.
 */
import { ConflictError } from '@pv-controller/kube/errors.js';
import type { KubeObject, ObjectList, Status } from '@pv-controller/kube/types.js';
import { preconditionFailed } from './meta-rules.js';
import { apiVersionOf } from '../decode/object-decode.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { ObjectKey, Storage } from '../storage/storage.js';
import { finalizersForPropagation } from './propagation-finalizers.js';
import { selectionMatches, type Selection } from './selection.js';

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
}

/**
 * What a delete needs of the store it deletes from (the registry implements it): the resources
 * served, their storage keys, its clock, and the storage's reads and writes.
 */
export interface DeletionStore {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Pick<Storage, 'list' | 'write' | 'currentRV'>;
  keyOf(s: ResourceStrategy, namespace: string, name: string): ObjectKey;
  /** Now, plus `afterSeconds`, as an RFC 3339 timestamp in seconds. */
  timestamp(afterSeconds?: number): string;
}

interface PlannedDelete {
  /** What the response carries: the object as it was removed, or with deletionTimestamp set. */
  object: KubeObject;
  /** Whether the object is gone (else finalizers hold it). */
  removed: boolean;
  durable?: Promise<unknown>;
}

/**
 * A delete precondition that does not hold. The namespace registry checks them itself (with the
 * update wording, naming the resource); every other store leaves them to the storage layer,
 * whose conflict names the Kind.
 */
function deletePreconditionFailed(s: ResourceStrategy, obj: KubeObject, what: 'UID' | 'ResourceVersion', want: string, have: string): ConflictError {
  if (isNamespace(s)) return preconditionFailed(s.info, obj, `${what} in precondition: ${want}, ${what} in object meta: ${have}`);
  const name = obj.metadata.name ?? '';
  const kind = s.info.group ? `${s.info.kind}.${s.info.group}` : s.info.kind;
  const why = what === 'UID' ? 'deleted and then recreated' : 'modified';
  return new ConflictError(
    { kind: s.info.kind, ...(s.info.group ? { group: s.info.group } : {}), name },
    `Operation cannot be fulfilled on ${kind} "${name}": the ${what} in the precondition (${want}) does not match the ${what} in record (${have}). The object might have been ${why}`,
  );
}

function checkPreconditions(s: ResourceStrategy, obj: KubeObject, pre: DeleteOptions['preconditions']): void {
  if (!pre) return;
  const meta = obj.metadata;
  if (pre.uid && pre.uid !== meta.uid) throw deletePreconditionFailed(s, obj, 'UID', pre.uid, meta.uid ?? '');
  if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw deletePreconditionFailed(s, obj, 'ResourceVersion', pre.resourceVersion, meta.resourceVersion ?? '');
  }
}

/** The synchronous part of a delete: checks and the storage write. */
function planDelete(reg: DeletionStore, s: ResourceStrategy, prev: KubeObject, opts: DeleteOptions): PlannedDelete {
  checkPreconditions(s, prev, opts.preconditions);
  const meta = prev.metadata;
  const key = reg.keyOf(s, meta.namespace ?? '', meta.name ?? '');
  if (s.holdsDeletion?.(prev) === true) return planTermination(reg, key, prev, opts);
  // The garbage collector's finalizer the propagation policy asks for.
  const finalizers = finalizersForPropagation(meta.finalizers ?? [], { ...opts, orphansByDefault: s.orphansByDefault });
  const propagated = finalizers === undefined ? prev : { ...prev, metadata: { ...meta, finalizers } };
  const base = s.prepareForDelete !== undefined && meta.deletionTimestamp === undefined ? s.prepareForDelete(propagated, reg.timestamp()) : propagated;
  if (s.gracePeriodSeconds) return planGracefulDelete(reg, s, key, base, opts);
  if ((base.metadata.finalizers ?? []).length > 0) {
    if (meta.deletionTimestamp !== undefined && base === prev) return { object: prev, removed: false };
    const marks = meta.deletionTimestamp === undefined ? { deletionTimestamp: reg.timestamp(), deletionGracePeriodSeconds: 0, ...generationBump(meta) } : {};
    const next: KubeObject = { ...base, metadata: { ...base.metadata, ...marks } };
    if (opts.dryRun) return { object: next, removed: false };
    const { change, durable } = reg.storage.write({ type: 'update', key, object: next });
    return { object: change.object, removed: false, durable };
  }
  if (opts.dryRun) return { object: prev, removed: true };
  const { change, durable } = reg.storage.write({ type: 'delete', key });
  const contents = isNamespace(s) ? planNamespaceContentsDelete(reg, meta.name ?? '') : [];
  return { object: change.object, removed: true, durable: Promise.all([durable, ...contents]) };
}

/**
 * The namespace registry's delete while spec.finalizers hold it: deletionTimestamp and phase
 * Terminating (no grace period), after which its finalizers' owner, the namespace controller,
 * empties and finalizes it.
 */
function planTermination(reg: DeletionStore, key: ObjectKey, prev: KubeObject, opts: DeleteOptions): PlannedDelete {
  if (prev.metadata.deletionTimestamp !== undefined) return { object: prev, removed: false };
  const status = typeof prev.status === 'object' && prev.status !== null ? prev.status : {};
  const next: KubeObject = {
    ...prev,
    metadata: { ...prev.metadata, deletionTimestamp: reg.timestamp() },
    status: { ...status, phase: 'Terminating' },
  };
  if (opts.dryRun) return { object: next, removed: false };
  const { change, durable } = reg.storage.write({ type: 'update', key, object: next });
  return { object: change.object, removed: false, durable };
}

/**
 * A graceful delete (BeforeDelete with the strategy's grace period): deletionTimestamp is now
 * plus the period and generation counts it; with no period left and no finalizers the object
 * goes at once, its last state (with the deletion marks) being the answer. A later delete may
 * only shorten the period to zero, which removes it.
 */
function planGracefulDelete(reg: DeletionStore, s: ResourceStrategy, key: ObjectKey, prev: KubeObject, opts: DeleteOptions): PlannedDelete {
  const meta = prev.metadata;
  const period = s.gracePeriodSeconds!(prev, opts.gracePeriodSeconds);
  const held = (meta.finalizers ?? []).length > 0;
  let current = prev;
  if (meta.deletionTimestamp === undefined) {
    const marks = { deletionTimestamp: reg.timestamp(period), deletionGracePeriodSeconds: period, ...generationBump(meta) };
    current = { ...prev, metadata: { ...meta, ...marks } };
    if (opts.dryRun) return { object: current, removed: !held && period === 0 };
  } else if (period !== 0 || held || opts.dryRun) {
    return { object: prev, removed: false };
  }
  const pending: Promise<unknown>[] = [];
  if (current !== prev) {
    const { change, durable } = reg.storage.write({ type: 'update', key, object: current });
    current = change.object;
    pending.push(durable);
  }
  if (period !== 0 || held) return { object: current, removed: false, durable: Promise.all(pending) };
  const { change, durable } = reg.storage.write({ type: 'delete', key });
  return { object: change.object, removed: true, durable: Promise.all([...pending, durable]) };
}

/** markAsDeleting counts the start of deletion as a change of a generation that is set. */
function generationBump(meta: KubeObject['metadata']): { generation?: number } {
  return typeof meta.generation === 'number' && meta.generation > 0 ? { generation: meta.generation + 1 } : {};
}

function isNamespace(s: ResourceStrategy): boolean {
  return s.info.group === '' && s.info.plural === 'namespaces';
}

/** Deleting a namespace deletes what is in it (finalizers still hold their objects back). */
function planNamespaceContentsDelete(reg: DeletionStore, namespace: string): Promise<unknown>[] {
  const pending: Promise<unknown>[] = [];
  for (const s of reg.strategies) {
    if (!s.info.namespaced) continue;
    for (const obj of reg.storage.list(reg.keyOf(s, namespace, '').resource, namespace)) {
      const planned = planDelete(reg, s, obj, {});
      if (planned.durable) pending.push(planned.durable);
    }
  }
  return pending;
}

/**
 * finalizeDelete's answer for an object that is gone: a Success Status naming it (details.kind is
 * the resource, as upstream sets it), for the registries that do not return the deleted object.
 */
function deletedStatus(s: ResourceStrategy, obj: KubeObject): Status {
  const details: NonNullable<Status['details']> = { name: obj.metadata.name ?? '' };
  if (s.info.group) details.group = s.info.group;
  details.kind = s.info.plural;
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as Status;
}

export async function deleteObject(
  reg: DeletionStore,
  s: ResourceStrategy,
  prev: KubeObject,
  opts: DeleteOptions,
): Promise<KubeObject | Status> {
  const planned = planDelete(reg, s, prev, opts);
  await planned.durable;
  return planned.removed && s.deleteAnswersStatus === true ? deletedStatus(s, planned.object) : planned.object;
}

export async function deleteCollection(
  reg: DeletionStore,
  s: ResourceStrategy,
  sel: Selection,
  opts: DeleteOptions,
): Promise<ObjectList> {
  const resource = reg.keyOf(s, '', '').resource;
  const victims = reg.storage.list(resource, sel.namespace).filter((o) => selectionMatches(sel, o, s));
  const { dryRun, propagationPolicy, orphanDependents } = opts;
  const planned = victims.map((obj) => planDelete(reg, s, obj, { dryRun, propagationPolicy, orphanDependents }));
  await Promise.all(planned.map((p) => p.durable));
  return {
    kind: s.info.listKind,
    apiVersion: apiVersionOf(s.info),
    metadata: { resourceVersion: String(reg.storage.currentRV()) },
    // As they were before the delete, which is what kube-apiserver's DeleteCollection lists.
    items: victims,
  };
}
