/**
 * What kube-apiserver's apiextensions controllers do for a CustomResourceDefinition, in one small
 * controller: a definition that is created or changed is served (each served version through a
 * strategy of its schema, in place of what served the resource before) and its status says so
 * (acceptedNames; NamesAccepted and Established); a definition being deleted has its instances
 * deleted (their finalizers still hold them) and, once none is left, stops being served and loses
 * its cleanup finalizer. A resource a built-in strategy serves is never taken over.
 */
import type { Logger } from 'pino';
import { FINALIZER_CRD_INSTANCE_CLEANUP } from '@pv-controller/kube/annotations.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { DecodedObject } from '../decode/field-validation.js';
import { decodeOwnWrite } from '../decode/object-decode.js';
import type { DeleteOptions } from '../registry/deletion.js';
import type { Selection } from '../registry/selection.js';
import { customResourceDefinitionStrategy, withCondition, type CRDCondition } from '../resources/apiextensions.k8s.io/customresourcedefinitions.js';
import type { CustomResourceDefinition } from '../resources/custom/crd-types.js';
import { customResourceStrategies } from '../resources/custom/custom-strategy.js';
import { jsonEqual } from '../resources/object-utils.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { Change, ObjectKey, Storage } from '../storage/storage.js';
import { KeyedRuns } from './keyed-runs.js';

/** What the CRD controller needs of the registry (the registry implements it). */
export interface CrdStore {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Pick<Storage, 'get' | 'list' | 'subscribe'>;
  keyOf(s: ResourceStrategy, namespace: string, name: string): ObjectKey;
  timestamp(): string;
  serveResource(group: string, plural: string, strategies: readonly ResourceStrategy[]): void;
  update(s: ResourceStrategy, namespace: string, name: string, decoded: DecodedObject, opts: { subresource?: string; fieldManager?: string }): Promise<unknown>;
  deleteCollection(s: ResourceStrategy, sel: Selection, options: DeleteOptions): Promise<unknown>;
}

const CRD = customResourceDefinitionStrategy;
const ALL: Selection = { namespace: undefined, labels: [], fields: [] };
const AS_APISERVER = { fieldManager: 'kube-apiserver' };

export class CrdController {
  private readonly resource: string;
  private readonly runs: KeyedRuns;
  /** The storage resource of each definition served, by definition name. */
  private readonly served = new Map<string, { group: string; plural: string; resource: string; spec: unknown }>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly registry: CrdStore, private readonly log: Logger) {
    this.resource = registry.keyOf(CRD, '', '').resource;
    this.runs = new KeyedRuns((name) => this.reconcile(name), (err, name) => {
      this.log.warn({ err, crd: name }, 'CustomResourceDefinition reconcile failed; retrying on the next change');
    });
  }

  /** Serves every stored definition at once (before the server listens), then follows changes. */
  async start(): Promise<void> {
    this.unsubscribe = this.registry.storage.subscribe((c) => this.onChange(c));
    for (const crd of this.registry.storage.list(this.resource, undefined)) await this.runs.run(crd.metadata.name ?? '');
  }

  stop(): void {
    this.stopped = true;
    this.runs.stop();
    this.unsubscribe?.();
  }

  private onChange(change: Change): void {
    if (change.key.resource === this.resource) {
      this.schedule(change.key.name);
      return;
    }
    // An instance of a definition being deleted went or changed: look again.
    for (const [name, served] of this.served) if (served.resource === change.key.resource) this.schedule(name);
  }

  private schedule(name: string): void {
    this.runs.schedule(name);
  }

  private async reconcile(name: string): Promise<void> {
    if (this.stopped) return;
    const crd = this.registry.storage.get({ resource: this.resource, namespace: '', name }) as CustomResourceDefinition | undefined;
    if (crd === undefined) return this.forget(name);
    if (crd.metadata.deletionTimestamp !== undefined) return this.cleanUp(crd);
    return this.establish(crd);
  }

  private takenByBuiltIn(group: string, plural: string): boolean {
    return this.registry.strategies.some((s) => s.info.group === group && s.info.plural === plural && s.info.custom === undefined);
  }

  private async establish(crd: CustomResourceDefinition): Promise<void> {
    const { group, names } = crd.spec;
    const name = crd.metadata.name ?? '';
    if (this.takenByBuiltIn(group, names.plural)) {
      await this.writeStatus(crd, false, 'the resource is served by the server itself');
      return;
    }
    // Served again only when the spec changed (a status write changes nothing served).
    if (!jsonEqual(this.served.get(name)?.spec, crd.spec)) {
      const strategies = customResourceStrategies(crd.spec);
      this.registry.serveResource(group, names.plural, strategies);
      this.served.set(name, { group, plural: names.plural, resource: this.registry.keyOf(strategies[0] ?? CRD, '', '').resource, spec: crd.spec });
      this.log.info({ crd: name, versions: strategies.map((s) => s.info.version) }, 'CustomResourceDefinition served');
    }
    await this.writeStatus(crd, true, 'no conflicts found');
  }

  private async writeStatus(crd: CustomResourceDefinition, accepted: boolean, message: string): Promise<void> {
    const now = this.registry.timestamp();
    const status = (crd.status ?? {}) as { conditions?: CRDCondition[]; acceptedNames?: unknown };
    let conditions = withCondition(status.conditions ?? [], {
      type: 'NamesAccepted', status: accepted ? 'True' : 'False', lastTransitionTime: now, reason: accepted ? 'NoConflicts' : 'NamesConflict', message,
    });
    conditions = withCondition(conditions, accepted
      ? { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
      : { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' });
    const acceptedNames = accepted ? { ...crd.spec.names } : status.acceptedNames ?? { plural: '', kind: '' };
    const next = { ...crd.status, acceptedNames, conditions };
    if (jsonEqual(next, crd.status)) return;
    const body = { ...crd, status: next };
    await this.registry.update(CRD, '', crd.metadata.name ?? '', decodeOwnWrite(CRD.info, body, ''), { subresource: 'status', ...AS_APISERVER });
  }

  /** Deletes the instances; once none is left, the definition stops being served and is let go. */
  private async cleanUp(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const strategies = this.registry.strategies.filter((s) => s.info.group === crd.spec.group && s.info.plural === crd.spec.names.plural && s.info.custom !== undefined);
    const first = strategies[0];
    if (first !== undefined) {
      const resource = this.registry.keyOf(first, '', '').resource;
      const live = this.registry.storage.list(resource, undefined).filter((o: KubeObject) => o.metadata.deletionTimestamp === undefined);
      if (live.length > 0) await this.registry.deleteCollection(first, ALL, {});
      if (this.registry.storage.list(resource, undefined).length > 0) return;
      this.registry.serveResource(crd.spec.group, crd.spec.names.plural, []);
    }
    this.served.delete(name);
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_CRD_INSTANCE_CLEANUP);
    if (finalizers.length === (crd.metadata.finalizers ?? []).length) return;
    const current = this.registry.storage.get({ resource: this.resource, namespace: '', name });
    if (current === undefined) return;
    const body = { ...current, metadata: { ...current.metadata, finalizers } };
    await this.registry.update(CRD, '', name, decodeOwnWrite(CRD.info, body, ''), AS_APISERVER);
    this.log.info({ crd: name }, 'CustomResourceDefinition instances deleted; definition removed');
  }

  /** A definition gone without its finalizer (storage repaired by hand): stop serving what it served. */
  private forget(name: string): void {
    const served = this.served.get(name);
    if (served === undefined) return;
    this.served.delete(name);
    if (!this.takenByBuiltIn(served.group, served.plural)) this.registry.serveResource(served.group, served.plural, []);
  }
}
