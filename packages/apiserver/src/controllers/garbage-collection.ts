/**
 * The embedded server's garbage collector. A delete's propagationPolicy puts the garbage
 * collector's finalizer on the object (propagation-finalizers.ts): "orphan" to orphan its
 * dependents, or "foregroundDeletion" to delete them first. This small garbage collector then
 * does what kube-controller-manager's would:
 * - orphan: it strips the owner's references from its dependents, then removes the finalizer;
 * - foreground: it deletes every dependent that has no other live owner (in the foreground when
 *   the dependent has dependents of its own, else by the propagation its own finalizers ask
 *   for), and removes the finalizer once no dependent with `blockOwnerDeletion: true` remains.
 *   A dependent whose own dependent is also waiting on its dependents is a cycle: its references
 *   are made non-blocking before it is deleted, so the cycle ends. An object that names itself
 *   with blockOwnerDeletion waits (kube-controller-manager 1.37 keeps it Terminating too) until
 *   the namespace controller's Background delete takes the finalizer off.
 * Driven by storage changes, like the namespace controller; which owners a change concerns comes
 * from an index of dependents by owner uid (dependents-index.ts), so the work per change is
 * proportional to the references of what changed, never to the number of stored objects.
 */
import type { Logger } from 'pino';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '@pv-controller/kube/annotations.js';
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { DependentsIndex } from './dependents-index.js';
import { classifyOwners, isDeletingDependents, OwnerLookup, unblockedReferences, type OwnerStore } from './owner-references.js';
import { isGarbageCollectorFinalizer } from '../registry/propagation-finalizers.js';
import type { DeleteOptions } from '../registry/deletion.js';
import type { DecodedObject } from '../decode/field-validation.js';
import { decodeOwnWrite } from '../decode/object-decode.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { Change, ObjectKey, Storage } from '../storage/storage.js';

/** What the collector needs of the registry it collects in (the registry implements it). */
export interface CollectorStore extends OwnerStore {
  readonly storage: Pick<Storage, 'get' | 'list' | 'subscribe'>;
  update(s: ResourceStrategy, namespace: string, name: string, decoded: DecodedObject, opts?: { fieldManager?: string }): Promise<unknown>;
  delete(s: ResourceStrategy, namespace: string, name: string, options: DeleteOptions): Promise<unknown>;
}

const gcFinalizerOf = (obj: KubeObject | undefined): string | undefined =>
  obj?.metadata.deletionTimestamp === undefined ? undefined : obj.metadata.finalizers?.find((f) => isGarbageCollectorFinalizer(f));

/** Work done, for tests that hold the collector's cost to what changed. */
interface GarbageCollectorStats {
  /** Owners examined (one per collection run). */
  ownersCollected: number;
  /** Dependents examined across those runs. */
  dependentsVisited: number;
}

export class GarbageCollector {
  private readonly index = new DependentsIndex();
  private readonly owners: OwnerLookup;
  /** Owners (by uid) being deleted with a garbage collector finalizer: the only objects a dependent's change concerns. */
  private readonly waiting = new Map<string, ObjectKey>();
  private readonly scheduled = new Set<string>();
  private byResourceOf: { served: readonly ResourceStrategy[]; map: Map<string, ResourceStrategy> } | undefined;
  private readonly counters: GarbageCollectorStats = { ownersCollected: 0, dependentsVisited: 0 };
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly registry: CollectorStore, private readonly log: Logger) {
    this.owners = new OwnerLookup(registry);
  }

  /** The served resources by storage resource, rebuilt when the registry serves others (custom resources). */
  private get byResource(): Map<string, ResourceStrategy> {
    const served = this.registry.strategies;
    if (this.byResourceOf?.served !== served) {
      this.byResourceOf = { served, map: new Map(served.map((s) => [this.registry.keyOf(s, '', '').resource, s])) };
    }
    return this.byResourceOf.map;
  }

  start(): void {
    this.unsubscribe = this.registry.storage.subscribe((c) => this.onChange(c));
    for (const [resource] of this.byResource) {
      for (const obj of this.registry.storage.list(resource, undefined)) {
        const key = { resource, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
        this.index.add(key, obj);
        this.track(key, obj);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  stats(): GarbageCollectorStats {
    return { ...this.counters };
  }

  private onChange(change: Change): void {
    if (!this.byResource.has(change.key.resource)) return;
    const touched = this.index.apply(change);
    if (change.type === 'DELETED') this.waiting.delete(change.object.metadata.uid ?? '');
    else this.track(change.key, change.object);
    // A dependent that changed or went may be what one of its owners waits for.
    for (const uid of touched) if (this.waiting.has(uid)) this.schedule(uid);
  }

  private track(key: ObjectKey, obj: KubeObject): void {
    const uid = obj.metadata.uid ?? '';
    if (gcFinalizerOf(obj) === undefined) {
      this.waiting.delete(uid);
      return;
    }
    this.waiting.set(uid, key);
    this.schedule(uid);
  }

  private schedule(uid: string): void {
    if (this.stopped || this.scheduled.has(uid)) return;
    this.scheduled.add(uid);
    setImmediate(() => {
      this.scheduled.delete(uid);
      const key = this.waiting.get(uid);
      if (key === undefined || this.stopped) return;
      this.collect(uid, key).catch((err: unknown) => this.log.warn({ err, owner: key }, 'garbage collection failed; retrying on the next change'));
    });
  }

  /** The stored dependents of `uid` (the owner itself left out), with their strategies. */
  private dependents(uid: string): Array<{ s: ResourceStrategy; obj: KubeObject }> {
    const out: Array<{ s: ResourceStrategy; obj: KubeObject }> = [];
    for (const key of this.index.dependentsOf(uid)) {
      const obj = this.registry.storage.get(key);
      this.counters.dependentsVisited++;
      if (obj !== undefined && obj.metadata.uid !== uid) out.push({ s: this.byResource.get(key.resource)!, obj });
    }
    return out;
  }

  private async collect(uid: string, key: ObjectKey): Promise<void> {
    const owner = this.registry.storage.get(key);
    const finalizer = gcFinalizerOf(owner);
    if (!owner || owner.metadata.uid !== uid || finalizer === undefined) return;
    this.counters.ownersCollected++;
    if (finalizer === FINALIZER_ORPHAN_DEPENDENTS) {
      for (const d of this.dependents(uid)) await this.orphan(d.s, d.obj, uid);
    } else {
      for (const d of this.dependents(uid)) if (d.obj.metadata.deletionTimestamp === undefined) await this.deleteDependent(d.s, d.obj);
      // An owner that names itself with blockOwnerDeletion waits on itself, as in kube-controller-manager
      // (until the namespace controller's Background delete takes the finalizer off).
      if (blocks(owner, uid) || this.dependents(uid).some((d) => blocks(d.obj, uid))) return;
    }
    await this.removeFinalizer(key, uid, finalizer);
  }

  private async orphan(s: ResourceStrategy, obj: KubeObject, uid: string): Promise<void> {
    const meta = obj.metadata;
    const ownerReferences = (meta.ownerReferences ?? []).filter((r) => r.uid !== uid);
    await ignoreNotFound(this.rewrite(s, { ...obj, metadata: { ...meta, ownerReferences } }));
  }

  /**
   * A dependent of an owner deleting in the foreground, as kube-controller-manager's
   * attemptToDeleteItem treats it: kept (minus the references to owners that are going) while
   * another owner lives; else deleted, in the foreground when it has dependents itself.
   */
  private async deleteDependent(s: ResourceStrategy, obj: KubeObject): Promise<void> {
    const meta = obj.metadata;
    const [namespace, name, uid] = [meta.namespace ?? '', meta.name ?? '', meta.uid ?? ''];
    const owners = classifyOwners(this.owners, obj);
    if (owners.unknown) return;
    if (owners.solid > 0) {
      const ownerReferences = (meta.ownerReferences ?? []).filter((r) => !owners.going.has(r.uid));
      await ignoreNotFound(this.rewrite(s, { ...obj, metadata: { ...meta, ownerReferences } }));
      return;
    }
    if (this.index.hasDependents(uid)) {
      const inCycle = this.dependents(uid).some((d) => isDeletingDependents(d.obj));
      const unblocked = inCycle ? unblockedReferences(meta.ownerReferences ?? []) : undefined;
      if (unblocked !== undefined) await ignoreNotFound(this.rewrite(s, { ...obj, metadata: { ...meta, ownerReferences: unblocked } }));
      await ignoreNotFound(this.registry.delete(s, namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid } }));
      return;
    }
    await ignoreNotFound(this.registry.delete(s, namespace, name, { propagationPolicy: policyOf(obj), preconditions: { uid } }));
  }

  private async removeFinalizer(key: ObjectKey, uid: string, finalizer: string): Promise<void> {
    const current = this.registry.storage.get(key);
    if (!current || current.metadata.uid !== uid) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    const s = this.byResource.get(key.resource)!;
    await this.rewrite(s, { ...current, metadata: { ...current.metadata, finalizers } }, 'garbage-collector');
  }

  /** An update of a stored object with changed metadata. */
  private async rewrite(s: ResourceStrategy, obj: KubeObject, fieldManager?: string): Promise<unknown> {
    const { namespace = '', name = '' } = obj.metadata;
    return await this.registry.update(s, namespace, name, decodeOwnWrite(s.info, obj, namespace), fieldManager === undefined ? undefined : { fieldManager });
  }
}

/** Whether `obj` holds its owner `uid` back: a reference to it with blockOwnerDeletion. */
function blocks(obj: KubeObject, uid: string): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true);
}

/** The propagation a dependent with no owner left is deleted with: what its own finalizers ask, else Background. */
function policyOf(obj: KubeObject): string {
  const finalizers = obj.metadata.finalizers ?? [];
  if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)) return 'Orphan';
  return finalizers.includes(FINALIZER_DELETE_DEPENDENTS) ? 'Foreground' : 'Background';
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
}
