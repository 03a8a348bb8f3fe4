/**
 * One strategy per resource, in the shape of kube-apiserver's registry strategies: scope,
 * defaulting, validation, what create/update may change, status-subresource rules, and the
 * columns `kubectl get` prints. Pure functions only; the registry does the I/O.
 */
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import type { JSONSchemaProps } from './custom/json-schema.js';

/**
 * What a custom resource's version adds to its ResourceInfo: the structural schema its
 * CustomResourceDefinition gives (decoding prunes by it, field ownership merges by its list and
 * map markers), and the name its root is registered under in the OpenAPI definitions the merge
 * semantics are read from (openapi/definitions.ts, registerDefinitions).
 */
export interface CustomResourceInfo {
  schema: JSONSchemaProps;
  definition: string;
}

export interface ResourceInfo {
  /** API group, '' for core. */
  group: string;
  version: string;
  /** Plural, lower-case, as in URLs: "persistentvolumes". */
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  /** Verbs advertised in discovery. */
  verbs: string[];
  /** Whether a `/status` subresource exists. */
  hasStatus: boolean;
  categories?: string[];
  /**
   * Whether a /status write resets metadata as well as spec (its status strategy calls
   * ResetObjectMetaForStatus and lists metadata in GetResetFields: CSINodes), so nobody owns
   * metadata through /status.
   */
  statusResetsMetadata?: boolean;
  /** The group and version objects are stored in, where it is another one (events.k8s.io Events are core/v1). */
  storedAs?: { group: string; version: string };
  /** Present for a custom resource (served from a CustomResourceDefinition): no Go type, no protobuf. */
  custom?: CustomResourceInfo;
}

/** Extra fields a fieldSelector may name for this resource, mapped to their value. */
export type FieldSet = Record<string, string>;

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** What the registry lets a strategy look up (admission needs other objects). */
export interface AdmissionContext {
  /** Lists the stored objects of another resource by its plural name (and group). */
  list(group: string, plural: string, namespace?: string): KubeObject[];
  get(group: string, plural: string, namespace: string, name: string): KubeObject | undefined;
}

export interface ResourceStrategy {
  info: ResourceInfo;
  /**
   * Whether metadata.generation counts spec changes (1 on create, +1 per spec change), as the
   * strategies of kube-apiserver that call for it do (of ours: Pods). Elsewhere generation is
   * what the client sent, carried over on update.
   */
  tracksGeneration?: boolean;
  /**
   * Whether a delete that removes the object answers a Success Status rather than the object
   * (kube-apiserver's stores without ReturnDeletedObject: Events, Leases, Nodes).
   */
  deleteAnswersStatus?: boolean;
  /**
   * kube-apiserver serves this resource's watches from etcd, without a watch cache (Events), so
   * a watch from compacted history is refused in etcd's words.
   */
  noWatchCache?: boolean;
  /**
   * DefaultGarbageCollectionPolicy is OrphanDependents: a delete without a propagation policy
   * orphans the dependents (core/v1 ReplicationControllers).
   */
  orphansByDefault?: boolean;
  /** WarningsOnCreate / WarningsOnUpdate: what a write that is accepted is warned about. */
  warnings?(obj: KubeObject): string[];
  /** Whether a PUT to a missing object creates it (AllowCreateOnUpdate: Events, Leases). */
  allowCreateOnUpdate?: boolean;
  /** Fill in defaults (reclaim policy, volumeMode, phase, binding mode, ...). Mutates `obj`. */
  defaults(obj: KubeObject): void;
  /**
   * Admission at create time (may mutate: default StorageClass, protection finalizers) and
   * the PrepareForCreate rules (e.g. status reset). Throws an ApiError to reject.
   */
  prepareForCreate(obj: KubeObject, ctx: AdmissionContext): void;
  /** Validation of a new object: [] when valid. */
  validateCreate(obj: KubeObject): StatusCause[];
  /**
   * PrepareForUpdate on the main resource: e.g. keep the old status (status changes are ignored
   * on the main resource). Mutates `next`.
   */
  prepareForUpdate(next: KubeObject, prev: KubeObject): void;
  validateUpdate(next: KubeObject, prev: KubeObject): StatusCause[];
  /**
   * Validating admission of an update to the main resource, run once validation has passed (as
   * kube-apiserver runs its validating admission plugins after the strategy). Throws an ApiError
   * to reject (PersistentVolumeClaimResize: 403).
   */
  admitUpdate?(next: KubeObject, prev: KubeObject, ctx: AdmissionContext): void;
  /** PrepareForUpdate on /status: only status may change; reset spec and metadata parts. */
  prepareForStatusUpdate?(next: KubeObject, prev: KubeObject, now: string): void;
  validateStatusUpdate?(next: KubeObject, prev: KubeObject): StatusCause[];
  /** PrepareForUpdate on /finalize (Namespaces): only spec.finalizers and metadata may change. */
  prepareForFinalizeUpdate?(next: KubeObject, prev: KubeObject): void;
  validateFinalizeUpdate?(next: KubeObject, prev: KubeObject): StatusCause[];
  /**
   * CheckGracefulDelete, for kinds deleted gracefully (Pods): the grace period a delete gets,
   * from the one asked for (DeleteOptions.gracePeriodSeconds) and the object.
   */
  gracePeriodSeconds?(obj: KubeObject, requested: number | undefined): number;
  /**
   * What a delete does to the object before its finalizers are looked at (the CRD registry adds
   * its instance-cleanup finalizer and a Terminating condition). Returns the object to go on with.
   */
  prepareForDelete?(obj: KubeObject, now: string): KubeObject;
  /** Finalizers outside metadata that keep a deleted object (a Namespace's spec.finalizers). */
  holdsDeletion?(obj: KubeObject): boolean;
  /** Field values a fieldSelector may name (besides metadata.name / metadata.namespace). */
  fields(obj: KubeObject): FieldSet;
  /**
   * The field labels this kind's field-label conversion accepts, each mapped to the field of
   * `fields` (or metadata) it selects on (kube-apiserver's AddFieldLabelConversionFunc). Absent:
   * the default conversion, which accepts metadata.name and metadata.namespace only.
   */
  fieldLabels?: Readonly<Record<string, string>>;
  /** Columns for `as=Table` (NAME first, AGE last, like kubectl shows). */
  tableColumns: TableColumn[];
  /** One row of cells for `as=Table`, matching `tableColumns`. `now` is for AGE. */
  tableRow(obj: KubeObject, now: Date): unknown[];
}
