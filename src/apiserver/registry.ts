/**
 * The generic registry: Kubernetes write semantics over the dumb Storage seam and one strategy
 * per resource (kube-apiserver's generic store, in small). Every read-check-write runs in one
 * synchronous stretch (Storage's concurrency contract); a write is acknowledged only once
 * `durable` resolved.
 */
import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, ApiError, ConflictError, NotFoundError } from '../kube/errors.js';
import type { KubeObject, ObjectList, StatusCause } from '../kube/types.js';
import { applyPatch, parsePatchBody } from './patch/index.js';
import { decodePatchResult } from './patch/patch-result.js';
import { QualifiedInvalidError } from './errors.js';
import type { FieldValidation } from './field-validation.js';
import { listObjects, type ListOptions } from './list.js';
import {
  carrySystemMeta,
  checkUidPrecondition,
  decodeObject,
  finalizerAdditionCauses,
  identityOf,
  requireNameMatchesUrl,
  resetMetaForCreate,
  setScope,
} from './object-decode.js';
import { generatedName, jsonEqual, rfc3339Seconds, specPart } from './object-utils.js';
import { deleteCollection, deleteObject, type DeleteOptions } from './deletion.js';
import type { AdmissionContext, ResourceStrategy } from './resources/strategy.js';
import { storageResource } from './router.js';
import { requireBodyResourceVersion, requireStorageResourceVersion } from './query-params.js';
import type { Selection } from './selection.js';
import { requireCollectionKey, requireLookupableNamespace, requireNamespaceForCollectionWrite, requireObjectKey } from './storage-key.js';
import type { ObjectKey, Storage } from './storage/storage.js';

export interface WriteOptions {
  /** 'status' for the status subresource. */
  subresource?: string;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
}

export interface WriteOutcome {
  object: KubeObject;
  /** Field-validation warnings to return in `Warning` headers. */
  warnings: string[];
}

export interface RegistryOptions {
  storage: Storage;
  strategies: ResourceStrategy[];
  /** Clock for timestamps (tests pin it). */
  now?: () => Date;
}

export class Registry {
  readonly storage: Storage;
  readonly strategies: ResourceStrategy[];
  private readonly byPath = new Map<string, ResourceStrategy>();
  private readonly now: () => Date;
  readonly admission: AdmissionContext;

  constructor(opts: RegistryOptions) {
    this.storage = opts.storage;
    this.strategies = opts.strategies;
    this.now = opts.now ?? (() => new Date());
    for (const s of opts.strategies) this.byPath.set(`${s.info.group}/${s.info.version}/${s.info.plural}`, s);
    this.admission = {
      list: (group, plural, namespace) => this.storage.list(storageResource(group, plural), namespace),
      get: (group, plural, namespace, name) =>
        this.storage.get({ resource: storageResource(group, plural), namespace, name }),
    };
  }

  strategyFor(group: string, version: string, plural: string): ResourceStrategy | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  timestamp(): string {
    return rfc3339Seconds(this.now());
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

  async create(s: ResourceStrategy, namespace: string, body: unknown, opts: WriteOptions = {}): Promise<WriteOutcome> {
    const { object, warnings } = decodeObject(s.info, body, namespace, opts.fieldValidation ?? 'Warn');
    // NamespaceLifecycle admission runs before the strategy names and validates the object.
    this.requireNamespace(s, namespace);
    const meta = object.metadata;
    if (!meta.name && meta.generateName) meta.name = generatedName(meta.generateName);
    if (!meta.name) {
      throw new QualifiedInvalidError({ kind: s.info.kind, group: s.info.group, name: '' }, [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    }
    resetMetaForCreate(meta, randomUUID(), this.timestamp());
    s.defaults(object);
    s.prepareForCreate(object, this.admission);
    this.throwIfInvalid(s, meta.name, s.validateCreate(object));
    const key = this.keyOf(s, namespace, meta.name);
    if (this.storage.get(key)) throw new AlreadyExistsError(identityOf(s.info, meta.name));
    if (opts.dryRun) return { object, warnings };
    const { change, durable } = this.storage.write({ type: 'create', key, object });
    await durable;
    return { object: change.object, warnings };
  }

  async update(
    s: ResourceStrategy,
    namespace: string,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<WriteOutcome> {
    const { object, warnings } = decodeObject(s.info, body, namespace, opts.fieldValidation ?? 'Warn');
    requireNameMatchesUrl(object.metadata, name);
    s.defaults(object);
    return { object: await this.commitUpdate(s, namespace, object, opts), warnings };
  }

  async patch(
    s: ResourceStrategy,
    namespace: string,
    name: string,
    contentType: string,
    patchBody: unknown,
    opts: WriteOptions = {},
  ): Promise<WriteOutcome> {
    const prev = this.get(s, namespace, name);
    const patch = parsePatchBody(contentType, patchBody);
    // The decoded result is a fresh copy: patch results may share (frozen) subtrees with the stored object.
    const patched = applyPatch(contentType, prev, patch, s);
    const { object, warnings } = decodePatchResult(s.info, contentType, patch, patched, opts.fieldValidation ?? 'Warn');
    setScope(s.info, object, namespace);
    requireNameMatchesUrl(object.metadata, name);
    s.defaults(object);
    const result = await this.commitUpdate(s, namespace, object, opts);
    return { object: result, warnings };
  }

  async delete(s: ResourceStrategy, namespace: string, name: string, options: DeleteOptions): Promise<KubeObject> {
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
  ): Promise<KubeObject> {
    const name = next.metadata.name ?? '';
    const prev = this.get(s, namespace, name);
    const wantRV = next.metadata.resourceVersion;
    requireBodyResourceVersion(wantRV);
    if (wantRV !== undefined && wantRV !== '' && wantRV !== prev.metadata.resourceVersion) {
      throw new ConflictError(identityOf(s.info, name));
    }
    checkUidPrecondition(s.info, next.metadata.uid, prev);
    carrySystemMeta(next.metadata, prev.metadata);
    const causes = this.prepareAndValidateUpdate(s, next, prev, opts.subresource);
    this.throwIfInvalid(s, name, causes);
    if (opts.subresource === undefined && !jsonEqual(specPart(next), specPart(prev))) {
      next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    }
    if (jsonEqual(next, prev)) return prev;
    const key = this.keyOf(s, namespace, name);
    const finishDeletion = next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0;
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
    if (subresource === 'status') {
      s.prepareForStatusUpdate?.(next, prev, this.timestamp());
      next.metadata = { ...next.metadata };
      carrySystemMeta(next.metadata, prev.metadata);
      return [...finalizerAdditionCauses(next.metadata, prev.metadata), ...(s.validateStatusUpdate?.(next, prev) ?? [])];
    }
    s.prepareForUpdate(next, prev);
    return [...finalizerAdditionCauses(next.metadata, prev.metadata), ...s.validateUpdate(next, prev)];
  }

  private throwIfInvalid(s: ResourceStrategy, name: string, causes: StatusCause[]): void {
    if (causes.length > 0) throw new QualifiedInvalidError({ kind: s.info.kind, group: s.info.group, name }, causes);
  }

  /** NamespaceLifecycle: a namespaced object needs its namespace to exist. */
  private requireNamespace(s: ResourceStrategy, namespace: string): void {
    // Like NamespaceLifecycle, nothing to look up without a namespace (validation refuses that).
    if (!s.info.namespaced || namespace === '') return;
    requireLookupableNamespace(namespace);
    const nsKey: ObjectKey = { resource: 'namespaces', namespace: '', name: namespace };
    if (!this.strategyFor('', 'v1', 'namespaces')) return;
    const ns = this.storage.get(nsKey);
    if (!ns) throw new NotFoundError({ kind: 'namespaces', name: namespace });
    if (ns.metadata.deletionTimestamp !== undefined) {
      throw new ApiError(403, 'Forbidden', `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }
}
