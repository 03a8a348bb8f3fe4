/**
 * The seam between the controller's machinery (informers, own-write cache and client in
 * kube-client/; events.ts, queue.ts) and its decisions (binder/, provisioner/, reclaimer/,
 * protection/). Decision code depends only on these interfaces, so it is unit-tested with
 * in-memory fakes and runs unchanged against a real cluster.
 */
import type { KubeObject, Lease, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import type { EventReason } from './event-reasons.js';

/**
 * The newest copy the controller knows of each object: informer events merged with the
 * controller's own write results (the higher integer resourceVersion wins), deletions included.
 */
export interface ObjectStore<T extends KubeObject> {
  get(key: ObjectKeyString): T | undefined;
  list(): T[];
  /** True once the initial list has been loaded. */
  hasSynced(): boolean;
  /**
   * True when the server has said the object `key` with this uid is gone: the watch delivered
   * its deletion, a consistent relist no longer had it, or our own DELETE removed it — remembered
   * for a few minutes. A uid never comes back, so this needs no live read to confirm. Optional:
   * a store without it makes callers read live.
   */
  wasDeleted?(key: ObjectKeyString, uid: string): boolean;
}

/**
 * Every API call the decision code makes. Each write sends the resourceVersion of the object
 * passed in (optimistic concurrency) and, on success, records the returned object in the
 * own-write cache so the very next decision sees it. Errors are thrown as received; use
 * kube/errors.ts (`isConflict`, `isNotFound`, `isAlreadyExists`) to classify them.
 */
export interface ApiClient {
  /** Live GET; undefined when the object does not exist. */
  getVolume(name: string): Promise<PersistentVolume | undefined>;
  getClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  getStorageClass(name: string): Promise<StorageClass | undefined>;
  /** Live GET of a VolumeAttributesClass; absent: this client cannot read them (claims naming one wait). */
  getVolumeAttributesClass?(name: string): Promise<VolumeAttributesClass | undefined>;
  getNode(name: string): Promise<Node | undefined>;
  createVolume(pv: PersistentVolume): Promise<PersistentVolume>;
  updateVolume(pv: PersistentVolume): Promise<PersistentVolume>;
  updateVolumeStatus(pv: PersistentVolume): Promise<PersistentVolume>;
  /** Deletes the PV object; with `uid`, only if it is still that object (precondition). */
  deleteVolume(name: string, uid?: string): Promise<void>;
  updateClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
  updateClaimStatus(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
  createClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
  /** Deletes the claim object; with `uid`, only if it is still that object (precondition). */
  deleteClaim(namespace: string, name: string, uid?: string): Promise<void>;
  /**
   * The controller's own records: Leases in its namespace (node-gone's state). Only the
   * controller (and whoever may take its leadership) writes there, unlike PV annotations.
   */
  listLeases(namespace: string, labelSelector: string): Promise<Lease[]>;
  createLease(lease: Lease): Promise<Lease>;
  updateLease(lease: Lease): Promise<Lease>;
  deleteLease(namespace: string, name: string, uid?: string): Promise<void>;
  /** Pods in a namespace (for "used by pods" checks). */
  listPods(namespace: string): Promise<Pod[]>;
}

export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events, aggregated like the real recorder (a repeat bumps a count). */
export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: EventReason, message: string): void;
}

/** Everything the decision code is given. */
export interface ControllerContext {
  volumes: ObjectStore<PersistentVolume>;
  claims: ObjectStore<PersistentVolumeClaim>;
  classes: ObjectStore<StorageClass>;
  pods?: ObjectStore<Pod>;
  /** Watched only while a module needs nodes (node-gone). */
  nodes?: ObjectStore<Node>;
  api: ApiClient;
  events: EventRecorder;
  /** Ask for another sync of a claim / volume soon (e.g. the binder after a PV becomes bound). */
  enqueueClaim(key: ObjectKeyString): void;
  enqueueVolume(name: string): void;
  /** Current time (injectable for tests of retry intervals). */
  now(): Date;
  /**
   * The server's resourceVersion read once this process's workers started (after it became the
   * leader, with election on): a claim copy written after it can only have been bound by this
   * process, whose writes reach the stores before they return, so the binder may trust such a
   * copy without a live GET. Absent or undefined ⇒ unknown: the binder re-reads live.
   */
  claimsFenceResourceVersion?(): number | undefined;
}
