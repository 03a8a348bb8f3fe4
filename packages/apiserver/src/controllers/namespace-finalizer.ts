/**
 * The embedded server's namespace controller: what kube-controller-manager's namespace
 * controller does for a cluster. A deleted Namespace stays Terminating while its spec.finalizers
 * hold "kubernetes"; this deletes everything in it (finalizers on those objects are honoured, so
 * a protected claim waits for its controller), and once the namespace is empty it removes
 * "kubernetes" through the finalize subresource, which lets the namespace go.
 *
 * Driven by storage changes: a change to a terminating namespace, or to anything inside one,
 * schedules that namespace once per turn of the event loop.
 */
import type { Logger } from 'pino';
import { FINALIZER_NAMESPACE_KUBERNETES } from '@pv-controller/kube/annotations.js';
import type { KubeObject, Namespace } from '@pv-controller/kube/types.js';
import { isGarbageCollectorFinalizer } from '../registry/propagation-finalizers.js';
import type { DeleteOptions } from '../registry/deletion.js';
import type { DecodedObject } from '../decode/field-validation.js';
import { decodeOwnWrite } from '../decode/object-decode.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { Change, ObjectKey, Storage } from '../storage/storage.js';
import { KeyedRuns } from './keyed-runs.js';

/** What the namespace controller needs of the registry (the registry implements it). */
export interface NamespaceStore {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Pick<Storage, 'get' | 'list' | 'subscribe'>;
  strategyFor(group: string, version: string, plural: string): ResourceStrategy | undefined;
  keyOf(s: ResourceStrategy, namespace: string, name: string): ObjectKey;
  update(s: ResourceStrategy, namespace: string, name: string, decoded: DecodedObject, opts: { subresource: 'finalize' }): Promise<unknown>;
  delete(s: ResourceStrategy, namespace: string, name: string, options: DeleteOptions): Promise<unknown>;
}

const isTerminating = (ns: KubeObject | undefined): boolean =>
  ns !== undefined && ns.metadata.deletionTimestamp !== undefined &&
  ((ns as Namespace).spec?.finalizers ?? []).includes(FINALIZER_NAMESPACE_KUBERNETES);

export class NamespaceFinalizer {
  private readonly runs: KeyedRuns;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly registry: NamespaceStore,
    private readonly log: Logger,
  ) {
    this.runs = new KeyedRuns((name) => this.reconcile(name), (err, name) => {
      this.log.warn({ err, namespace: name }, 'namespace finalization failed; retrying on the next change');
    });
  }

  start(): void {
    this.unsubscribe = this.registry.storage.subscribe((c) => this.onChange(c));
    for (const ns of this.registry.storage.list('namespaces', undefined)) if (isTerminating(ns)) this.schedule(ns.metadata.name ?? '');
  }

  stop(): void {
    this.stopped = true;
    this.runs.stop();
    this.unsubscribe?.();
  }

  private namespaceStrategy(): ResourceStrategy | undefined {
    return this.registry.strategyFor('', 'v1', 'namespaces');
  }

  private onChange(change: Change): void {
    if (change.key.resource === 'namespaces') {
      if (change.type !== 'DELETED' && isTerminating(change.object)) this.schedule(change.key.name);
    } else if (change.key.namespace) {
      const ns = this.registry.storage.get({ resource: 'namespaces', namespace: '', name: change.key.namespace });
      if (isTerminating(ns)) this.schedule(change.key.namespace);
    }
  }

  private schedule(name: string): void {
    this.runs.schedule(name);
  }

  /** Deletes what is left in the namespace; finalizes it once nothing is. */
  private async reconcile(name: string): Promise<void> {
    const s = this.namespaceStrategy();
    const ns = this.registry.storage.get({ resource: 'namespaces', namespace: '', name });
    if (this.stopped || !s || !isTerminating(ns)) return;
    let remaining = 0;
    for (const rs of this.registry.strategies) {
      if (!rs.info.namespaced) continue;
      for (const obj of this.registry.storage.list(this.registry.keyOf(rs, name, '').resource, name)) {
        remaining++;
        // No kubelet here finishes a graceful pod deletion, so pods go without a grace period.
        const graceful = rs.gracePeriodSeconds !== undefined;
        // Deletes are Background, as kube's namespace deleter sends them: an object held by the
        // garbage collector's finalizer (an owner waiting on itself) is let go too.
        const heldByCollector = (obj.metadata.finalizers ?? []).some(isGarbageCollectorFinalizer);
        if (obj.metadata.deletionTimestamp === undefined || graceful || heldByCollector) {
          await this.registry.delete(rs, name, obj.metadata.name ?? '', { propagationPolicy: 'Background', ...(graceful ? { gracePeriodSeconds: 0 } : {}) });
        }
      }
    }
    if (remaining > 0) return;
    const current = this.registry.storage.get({ resource: 'namespaces', namespace: '', name }) as Namespace | undefined;
    if (!current || !isTerminating(current)) return;
    const finalizers = (current.spec?.finalizers ?? []).filter((f) => f !== FINALIZER_NAMESPACE_KUBERNETES);
    const body = { ...current, spec: { ...current.spec, finalizers } };
    await this.registry.update(s, '', name, decodeOwnWrite(s.info, body, ''), { subresource: 'finalize' });
  }
}
