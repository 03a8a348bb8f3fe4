/**
 * The generic registry: Kubernetes write semantics over the dumb Storage seam and one strategy
 * per resource (kube-apiserver's generic store, in small). Every read-check-write runs in one
 * synchronous stretch (Storage's concurrency contract); a write is acknowledged only once
 * `durable` resolved. It takes objects the endpoint layer decoded (write-request.ts), never a
 * request body: a patch or an apply comes as a function of the stored object.
 */
import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, ApiError, ConflictError, NotFoundError } from '@pv-controller/kube/errors.js';
import type { KubeObject, ObjectList, Status, StatusCause } from '@pv-controller/kube/types.js';
import type { EncodedEntry } from './apply/managed-fields.js';
import { managedFieldsAfterWrite, type OwnershipRequest } from './apply/ownership.js';
import { QualifiedInvalidError } from '../api/errors.js';
import type { DecodedObject } from '../decode/field-validation.js';
import { dedupOwnerReferences } from './owner-reference-dedup.js';
import { listObjects, type ListOptions } from './list.js';
import {
  carrySystemMeta,
  checkUidPrecondition,
  finalizerAdditionCauses,
  identityOf,
  requireNameMatchesUrl,
  resetMetaForCreate,
} from './meta-rules.js';
import { generatedName, jsonEqual, rfc3339Seconds, specPart } from '../resources/object-utils.js';
import { deleteCollection, deleteObject, type DeleteOptions, type DeletionStore } from './deletion.js';
import type { AdmissionContext, ResourceStrategy } from '../resources/strategy.js';
import { storageResource } from '../api/router.js';
import { requireBodyResourceVersion, requireStorageResourceVersion } from '../api/query-params.js';
import type { Selection } from './selection.js';
import { requireCollectionKey, requireLookupableNamespace, requireNamespaceForCollectionWrite, requireObjectKey } from './storage-key.js';
import type { ObjectKey, Storage } from '../storage/storage.js';

/** How a write is carried out; the body was decoded before (see write-request.ts). */
export interface WriteOptions {
  /** 'status' for the status subresource, 'finalize' for a namespace's finalize. */
  subresource?: string;
  dryRun?: boolean;
  /** Who writes, for managedFields: the fieldManager parameter, else the User-Agent's product. */
  fieldManager?: string;
}

/** The managedFields a server-side apply computed, which the write keeps as they are. */
interface AppliedFields {
  managedFields: EncodedEntry[] | undefined;
}

/**
 * A patch as the endpoint layer decoded it, applied to the stored object (kube-apiserver's
 * rest.UpdatedObjectInfo): the new object, decoded, with its scope and name checked.
 */
export type Patcher = (prev: KubeObject) => DecodedObject;

/** A server-side apply, decoded by the endpoint layer: its result on the live object, or on none. */
export type Applier = (live: KubeObject | undefined, ownership: OwnershipRequest) => DecodedObject & AppliedFields;

export interface WriteOutcome {
  object: KubeObject;
  /** Field-validation warnings to return in `Warning` headers. */
  warnings: string[];
  /** The object was created (201): by a server-side apply, or an update where the strategy allows create on update. */
  created?: boolean;
}

/** Sets or clears an object's managedFields. */
function setManagedFields(object: KubeObject, entries: EncodedEntry[] | undefined): void {
  if (entries === undefined) delete object.metadata.managedFields;
  else object.metadata.managedFields = entries;
}

interface RegistryOptions {
  storage: Storage;
  strategies: ResourceStrategy[];
  /** Clock for timestamps (tests pin it). */
  now?: () => Date;
}

/** NamespaceLifecycle's refusal, an admission Forbidden naming the resource as admission.NewForbidden does. */
function namespaceTerminating(s: ResourceStrategy, namespace: string, name: string): ApiError {
  const resource = s.info.group ? `${s.info.plural}.${s.info.group}` : s.info.plural;
  const subject = name ? `${resource} "${name}"` : resource;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
    ...(name ? { name } : {}),
    ...(s.info.group ? { group: s.info.group } : {}),
    kind: s.info.plural,
    causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
  });
}

export class Registry implements DeletionStore {
  readonly storage: Storage;
  /** The resources served: a new array whenever that changes (a CustomResourceDefinition established or removed). */
  private served: readonly ResourceStrategy[];
  private readonly byPath = new Map<string, ResourceStrategy>();
  private readonly now: () => Date;
  readonly admission: AdmissionContext;

  constructor(opts: RegistryOptions) {
    this.storage = opts.storage;
    this.served = [...opts.strategies];
    this.now = opts.now ?? (() => new Date());
    for (const s of opts.strategies) this.byPath.set(`${s.info.group}/${s.info.version}/${s.info.plural}`, s);
    this.admission = {
      list: (group, plural, namespace) => this.storage.list(storageResource(group, plural), namespace),
      get: (group, plural, namespace, name) =>
        this.storage.get({ resource: storageResource(group, plural), namespace, name }),
    };
  }

  get strategies(): readonly ResourceStrategy[] {
    return this.served;
  }

  strategyFor(group: string, version: string, plural: string): ResourceStrategy | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  /**
   * Serves `strategies` (the versions of one resource, group/plural) in place of whatever served
   * that resource before; none stops serving it. Objects stay in storage either way.
   */
  serveResource(group: string, plural: string, strategies: readonly ResourceStrategy[]): void {
    const others = this.served.filter((s) => s.info.group !== group || s.info.plural !== plural);
    for (const s of this.served) if (s.info.group === group && s.info.plural === plural) this.byPath.delete(`${group}/${s.info.version}/${plural}`);
    for (const s of strategies) this.byPath.set(`${group}/${s.info.version}/${plural}`, s);
    this.served = [...others, ...strategies];
  }

  timestamp(afterSeconds = 0): string {
    return rfc3339Seconds(new Date(this.now().getTime() + afterSeconds * 1000));
  }

  keyOf(s: ResourceStrategy, namespace: string, name: string): ObjectKey {
    return { resource: storageResource(s.info.group, s.info.plural), namespace: s.info.namespaced ? namespace : '', name };
  }

  /** One object by the namespace and name a request gave (checked before they become a key). */
  get(s: ResourceStrategy, namespace: string, name: string, resourceVersion = ''): KubeObject {
    requireObjectKey(s.info, namespace, name);
    requireStorageResourceVersion(resourceVersion);
    const obj = this.storage.get(this.keyOf(s, namespace, name));
    if (!obj) throw new NotFoundError(identityOf(s.info, name));
    return obj;
  }

  list(s: ResourceStrategy, sel: Selection, opts: ListOptions): ObjectList {
    requireCollectionKey(s.info, sel.namespace);
    return listObjects(this.storage, s, storageResource(s.info.group, s.info.plural), sel, opts);
  }

  /** Creates an object a request decoded (as decodeObject does) into the resource's kind and `namespace`. */
  async create(s: ResourceStrategy, namespace: string, decoded: DecodedObject, opts: WriteOptions = {}, applied?: AppliedFields): Promise<WriteOutcome> {
    const { object } = decoded;
    let { warnings } = decoded;
    const supplied = object.metadata.managedFields;
    const dedup = dedupOwnerReferences(object.metadata, 'request');
    if (dedup !== undefined) warnings = [...warnings, dedup];
    // NamespaceLifecycle admission runs before the strategy names and validates the object.
    this.requireNamespace(s, namespace, object.metadata.name ?? '');
    const meta = object.metadata;
    if (!meta.name && meta.generateName) meta.name = generatedName(meta.generateName);
    if (!meta.name) {
      throw new QualifiedInvalidError({ kind: s.info.kind, group: s.info.group }, [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    }
    resetMetaForCreate(meta, randomUUID(), this.timestamp(), s.tracksGeneration === true);
    s.defaults(object);
    const managedFields = applied
      ? applied.managedFields
      : managedFieldsAfterWrite(s.info, undefined, object, supplied, this.ownership(opts));
    s.prepareForCreate(object, this.admission);
    this.throwIfInvalid(s, meta.name, s.validateCreate(object));
    setManagedFields(object, managedFields);
    const key = this.keyOf(s, namespace, meta.name);
    if (this.storage.get(key)) throw new AlreadyExistsError(identityOf(s.info, meta.name));
    const allWarnings = [...warnings, ...(s.warnings?.(object) ?? [])];
    if (opts.dryRun) return { object, warnings: allWarnings };
    const { change, durable } = this.storage.write({ type: 'create', key, object });
    await durable;
    return { object: change.object, warnings: allWarnings };
  }

  /** Replaces an object with one a request decoded (as decodeObject does). */
  async update(s: ResourceStrategy, namespace: string, name: string, decoded: DecodedObject, opts: WriteOptions = {}): Promise<WriteOutcome> {
    const { object } = decoded;
    const warnings = [...decoded.warnings];
    requireNameMatchesUrl(object.metadata, name);
    const dedup = dedupOwnerReferences(object.metadata, 'request');
    if (dedup !== undefined) warnings.push(dedup);
    if (s.allowCreateOnUpdate === true && opts.subresource === undefined) {
      requireObjectKey(s.info, namespace, name);
      if (!this.storage.get(this.keyOf(s, namespace, name))) {
        return { ...(await this.create(s, namespace, { object, warnings }, opts)), created: true };
      }
    }
    s.defaults(object);
    const committed = await this.commitUpdate(s, namespace, object, opts);
    return { object: committed, warnings: [...warnings, ...this.updateWarnings(s, committed, opts)] };
  }

  /** A patch (JSON, merge or strategic) of the stored object; `patched` decodes its result. */
  async patch(s: ResourceStrategy, namespace: string, name: string, patched: Patcher, opts: WriteOptions = {}): Promise<WriteOutcome> {
    const prev = this.get(s, namespace, name);
    const { object, warnings } = patched(prev);
    const dedup = dedupOwnerReferences(object.metadata, 'after-admission');
    if (dedup !== undefined) warnings.push(dedup);
    s.defaults(object);
    const result = await this.commitUpdate(s, namespace, object, opts);
    return { object: result, warnings: [...warnings, ...this.updateWarnings(s, result, opts)] };
  }

  /** Server-side apply: merges the configuration into the object, or creates it from it. */
  async apply(s: ResourceStrategy, namespace: string, name: string, applier: Applier, opts: WriteOptions = {}): Promise<WriteOutcome> {
    requireObjectKey(s.info, namespace, name);
    const live = this.storage.get(this.keyOf(s, namespace, name));
    if (!live && opts.subresource !== undefined) throw new NotFoundError(identityOf(s.info, name));
    const { object, warnings, managedFields } = applier(live, this.ownership(opts));
    const applied = { managedFields };
    if (!live) return { ...(await this.create(s, namespace, { object, warnings }, opts, applied)), created: true };
    s.defaults(object);
    const committed = await this.commitUpdate(s, namespace, object, opts, applied);
    return { object: committed, warnings: [...warnings, ...this.updateWarnings(s, committed, opts)] };
  }

  private ownership(opts: WriteOptions): OwnershipRequest {
    return { manager: opts.fieldManager ?? 'unknown', subresource: opts.subresource, now: this.timestamp() };
  }

  async delete(s: ResourceStrategy, namespace: string, name: string, options: DeleteOptions): Promise<KubeObject | Status> {
    return await deleteObject(this, s, this.get(s, namespace, name), options);
  }

  async deleteCollection(s: ResourceStrategy, sel: Selection, options: DeleteOptions): Promise<ObjectList> {
    requireNamespaceForCollectionWrite(s.info, sel.namespace);
    return await deleteCollection(this, s, sel, options);
  }

  /**
   * The shared tail of PUT and PATCH: preconditions, strategy hooks, validation, generation,
   * no-op detection, and deletion once the last finalizer is gone. Synchronous up to the write.
   */
  private async commitUpdate(
    s: ResourceStrategy,
    namespace: string,
    next: KubeObject,
    opts: WriteOptions,
    applied?: AppliedFields,
  ): Promise<KubeObject> {
    const name = next.metadata.name ?? '';
    const prev = this.get(s, namespace, name);
    const wantRV = next.metadata.resourceVersion;
    requireBodyResourceVersion(wantRV);
    if (wantRV !== undefined && wantRV !== '' && wantRV !== prev.metadata.resourceVersion) {
      throw new ConflictError(identityOf(s.info, name));
    }
    checkUidPrecondition(s.info, next.metadata.uid, prev);
    const supplied = next.metadata.managedFields;
    carrySystemMeta(next.metadata, prev.metadata);
    const managedFields = applied
      ? applied.managedFields
      : managedFieldsAfterWrite(s.info, prev, next, supplied, this.ownership(opts));
    const causes = this.prepareAndValidateUpdate(s, next, prev, opts.subresource);
    this.throwIfInvalid(s, name, causes);
    if (opts.subresource === undefined) s.admitUpdate?.(next, prev, this.admission);
    setManagedFields(next, managedFields);
    if (s.tracksGeneration === true && opts.subresource === undefined && !jsonEqual(specPart(next), specPart(prev))) {
      next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    }
    if (jsonEqual(next, prev)) return prev;
    const key = this.keyOf(s, namespace, name);
    const finishDeletion = next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0 &&
      s.holdsDeletion?.(next) !== true;
    if (opts.dryRun) return next;
    if (finishDeletion) {
      const { change, durable } = this.storage.write({ type: 'delete', key });
      await durable;
      return { ...next, metadata: { ...next.metadata, resourceVersion: String(change.rv) } };
    }
    const { change, durable } = this.storage.write({ type: 'update', key, object: next });
    await durable;
    return change.object;
  }

  private prepareAndValidateUpdate(
    s: ResourceStrategy,
    next: KubeObject,
    prev: KubeObject,
    subresource: string | undefined,
  ): StatusCause[] {
    if (subresource === 'finalize') {
      s.prepareForFinalizeUpdate?.(next, prev);
      return [...finalizerAdditionCauses(next.metadata, prev.metadata), ...(s.validateFinalizeUpdate?.(next, prev) ?? [])];
    }
    if (subresource === 'status') {
      s.prepareForStatusUpdate?.(next, prev, this.timestamp());
      next.metadata = { ...next.metadata };
      carrySystemMeta(next.metadata, prev.metadata);
      return [...finalizerAdditionCauses(next.metadata, prev.metadata), ...(s.validateStatusUpdate?.(next, prev) ?? [])];
    }
    s.prepareForUpdate(next, prev);
    return [...finalizerAdditionCauses(next.metadata, prev.metadata), ...s.validateUpdate(next, prev)];
  }

  /** A strategy's warnings about an update of the main resource (subresources have strategies of their own). */
  private updateWarnings(s: ResourceStrategy, obj: KubeObject, opts: WriteOptions): string[] {
    return opts.subresource === undefined ? (s.warnings?.(obj) ?? []) : [];
  }

  /** 422 naming the kind objects are validated as: the stored one (an events.k8s.io Event is a core Event). */
  private throwIfInvalid(s: ResourceStrategy, name: string, causes: StatusCause[]): void {
    const group = s.info.storedAs?.group ?? s.info.group;
    if (causes.length > 0) throw new QualifiedInvalidError({ kind: s.info.kind, group, name }, causes);
  }

  /** NamespaceLifecycle: a namespaced object needs its namespace to exist. */
  private requireNamespace(s: ResourceStrategy, namespace: string, name: string): void {
    // Like NamespaceLifecycle, nothing to look up without a namespace (validation refuses that).
    if (!s.info.namespaced || namespace === '') return;
    requireLookupableNamespace(namespace);
    const nsKey: ObjectKey = { resource: 'namespaces', namespace: '', name: namespace };
    if (!this.strategyFor('', 'v1', 'namespaces')) return;
    const ns = this.storage.get(nsKey);
    if (!ns) throw new NotFoundError({ kind: 'namespaces', name: namespace });
    if (ns.metadata.deletionTimestamp !== undefined) throw namespaceTerminating(s, namespace, name);
  }
}
