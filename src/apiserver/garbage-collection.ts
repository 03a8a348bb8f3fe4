/**
 * The embedded server's garbage collector. A delete's propagationPolicy puts the garbage
 * collector's finalizer on the object (propagation-finalizers.ts): "orphan" to orphan its
 * dependents, or "foregroundDeletion" to delete them first. This small garbage collector then
 * does what kube-controller-manager's would: it strips the owner's references from its dependents
 * (orphan) or deletes them (foreground), and once none is left removes the finalizer, which lets
 * the owner go. Driven by storage changes, like the namespace controller.
 */
import type { Logger } from 'pino';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '../kube/annotations.js';
import { isGarbageCollectorFinalizer } from './propagation-finalizers.js';
import type { KubeObject } from '../kube/types.js';
import type { Registry } from './registry.js';
import type { ResourceStrategy } from './resources/strategy.js';
import type { Change } from './storage/storage.js';

const gcFinalizerOf = (obj: KubeObject | undefined): string | undefined =>
  obj?.metadata.deletionTimestamp === undefined ? undefined : obj.metadata.finalizers?.find((f) => isGarbageCollectorFinalizer(f));

interface Located {
  strategy: ResourceStrategy;
  object: KubeObject;
}

interface Job {
  strategy: ResourceStrategy;
  namespace: string;
  name: string;
}

const jobKey = (s: ResourceStrategy, obj: KubeObject): string => `${s.info.group}/${s.info.plural}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

export class GarbageCollector {
  private readonly scheduled = new Map<string, Job>();
  /** Owners being deleted with a garbage collector finalizer: the only objects a dependent's change concerns. */
  private readonly waiting = new Map<string, Job>();
  private readonly byResource = new Map<string, ResourceStrategy>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly registry: Registry, private readonly log: Logger) {
    for (const s of registry.strategies) this.byResource.set(registry.keyOf(s, '', '').resource, s);
  }

  start(): void {
    this.unsubscribe = this.registry.storage.subscribe((c) => this.onChange(c));
    for (const s of this.registry.strategies) {
      for (const obj of this.registry.storage.list(this.registry.keyOf(s, '', '').resource, undefined)) this.onObject(s, obj);
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  private onChange(change: Change): void {
    const s = this.byResource.get(change.key.resource);
    if (s && change.type !== 'DELETED') this.onObject(s, change.object);
    if (s && change.type === 'DELETED') this.waiting.delete(jobKey(s, change.object));
    // A dependent that changed or went may be what an owner waits for.
    const owners = (change.type === 'DELETED' ? change.prev : change.object)?.metadata.ownerReferences ?? [];
    if (owners.length > 0) for (const [key, job] of this.waiting) this.schedule(key, job);
  }

  private onObject(s: ResourceStrategy, obj: KubeObject): void {
    const key = jobKey(s, obj);
    if (gcFinalizerOf(obj) === undefined) {
      this.waiting.delete(key);
      return;
    }
    const job = { strategy: s, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
    this.waiting.set(key, job);
    this.schedule(key, job);
  }

  private schedule(key: string, job: Job): void {
    if (this.stopped || this.scheduled.has(key)) return;
    this.scheduled.set(key, job);
    setImmediate(() => {
      const due = this.scheduled.get(key);
      this.scheduled.delete(key);
      if (due) void this.collect(due.strategy, due.namespace, due.name).catch((err: unknown) => this.log.warn({ err, key }, 'garbage collection failed; retrying on the next change'));
    });
  }

  /** Every stored object with an owner reference to `uid`. */
  private dependentsOf(uid: string): Located[] {
    const out: Located[] = [];
    for (const s of this.registry.strategies) {
      for (const obj of this.registry.storage.list(this.registry.keyOf(s, '', '').resource, undefined)) {
        if ((obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) out.push({ strategy: s, object: obj });
      }
    }
    return out;
  }

  private async collect(s: ResourceStrategy, namespace: string, name: string): Promise<void> {
    const owner = this.registry.storage.get(this.registry.keyOf(s, namespace, name));
    const finalizer = gcFinalizerOf(owner);
    if (this.stopped || !owner || finalizer === undefined) return;
    const uid = owner.metadata.uid ?? '';
    const dependents = this.dependentsOf(uid);
    for (const d of dependents) {
      const meta = d.object.metadata;
      if (finalizer === FINALIZER_ORPHAN_DEPENDENTS) {
        const ownerReferences = (meta.ownerReferences ?? []).filter((r) => r.uid !== uid);
        await this.registry.update(d.strategy, meta.namespace ?? '', meta.name ?? '', { ...d.object, metadata: { ...meta, ownerReferences } });
      } else if (meta.deletionTimestamp === undefined) {
        await this.registry.delete(d.strategy, meta.namespace ?? '', meta.name ?? '', { propagationPolicy: 'Foreground' });
      }
    }
    if (finalizer === FINALIZER_DELETE_DEPENDENTS && dependents.length > 0) return;
    const current = this.registry.storage.get(this.registry.keyOf(s, namespace, name));
    if (!current || current.metadata.uid !== uid) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    await this.registry.update(s, namespace, name, { ...current, metadata: { ...current.metadata, finalizers } }, { fieldManager: 'garbage-collector' });
  }
}
