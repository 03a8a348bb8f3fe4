/**
 * The one seam every volume plugin implements. Plugins know nothing of queues, informers or the
 * API server: they get a typed request and return a typed result or throw a PluginError.
 *
 * Contracts every plugin must honour (checked by test/plugins/conformance.ts):
 * - provision is idempotent for a backing name: calling it again for the same name returns the
 *   same volume (it never creates a second one);
 * - delete is idempotent: a backing volume that is already gone is success;
 * - delete and recycle only ever touch what the plugin itself provisioned or what the PV names,
 *   and never anything outside the plugin's configured roots (see fs-common/safe-path.ts);
 * - parameter problems are reported by validateParameters, naming the parameter, before anything
 *   is created.
 */
import type {
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeSpec,
  TopologySelectorTerm,
  VolumeNodeAffinity,
} from '../kube/types.js';
import type { MetricsProvider } from '../metrics/provider.js';

/** Identity of the claim a volume is created for: the three tags plus what pathPattern may use. */
export interface ClaimInfo {
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface ProvisionRequest {
  /** `<cluster-name>-dynamic-<pv-name>`, already shortened to the backend's limit (naming.ts). */
  backingName: string;
  clusterName: string;
  pvName: string;
  claim: ClaimInfo;
  /** Requested size in bytes (claim.spec.resources.requests.storage). */
  requestBytes: bigint;
  accessModes: PersistentVolumeAccessMode[];
  volumeMode: 'Filesystem' | 'Block';
  /** The StorageClass parameters, already accepted by validateParameters. */
  parameters: Record<string, string>;
  mountOptions: string[];
  /** WaitForFirstConsumer: the node the scheduler chose. */
  selectedNode?: string;
  allowedTopologies?: TopologySelectorTerm[];
  /**
   * The parameters of the claim's VolumeAttributesClass (KEP-3751), already accepted by
   * validateAttributes; absent when the claim names none.
   */
  attributes?: Record<string, string>;
  /**
   * How many backing volumes were made for this claim and deleted after failed attempts (the
   * claim's `pv-controller.io/backing-generation`; 0 when absent). A plugin that passes an
   * idempotency token to its cloud derives the token from it, so a retry never replays the token
   * of a volume that was deleted.
   */
  generation?: number;
  /** Aborted when the controller shuts down or the claim is being deleted. */
  signal?: AbortSignal;
}

/** Grow the backing volume of a PV to at least `sizeBytes` (the expand capability). */
export interface ExpandRequest {
  pv: PersistentVolume;
  sizeBytes: bigint;
  signal?: AbortSignal;
}

export interface ExpandedVolume {
  /** What the backend now holds, as a Quantity string (may be larger than asked). */
  capacity: string;
  /**
   * The filesystem on the volume must still be grown on the node that mounts it (a block
   * device formatted by the kubelet); false when the backend's answer is already usable.
   */
  nodeExpansionRequired: boolean;
}

/** Apply a VolumeAttributesClass's parameters to an existing volume (the modify capability). */
export interface ModifyRequest {
  pv: PersistentVolume;
  /** The new class's parameters, already accepted by validateAttributes. */
  attributes: Record<string, string>;
  signal?: AbortSignal;
}

export interface ProvisionedVolume {
  /** The PV spec's volume source, e.g. `{ hostPath: { path, type } }` or `{ nfs: {...} }`. */
  source: Partial<PersistentVolumeSpec>;
  /** What was actually created, as a Quantity string (may be larger than requested). */
  capacity: string;
  nodeAffinity?: VolumeNodeAffinity;
  /** Labels to put on the PV (e.g. topology zone). */
  labels?: Record<string, string>;
}

/** What delete needs: the backing name, the PV when one exists, and the class parameters if known. */
export interface DeleteRequest {
  backingName: string;
  /** Present when deleting for a PV; absent when cleaning up after a claim deleted mid-provision. */
  pv?: PersistentVolume;
  parameters?: Record<string, string>;
  signal?: AbortSignal;
}

/** A backing volume found on the backend that carries this cluster's mark (for `orphans`). */
export interface BackingVolume {
  backingName: string;
  /** The backend's own id (path, volume id, disk name). */
  id: string;
  pvName?: string;
  claimNamespace?: string;
  claimName?: string;
}

/** A file a killed operation left on the backend that is no volume (a temporary record file). */
export interface StrayFile {
  path: string;
  modifiedAt: Date;
  /** False while it may still belong to an operation in progress: it is then never removed. */
  removable: boolean;
}

export interface ParameterProblem {
  parameter: string;
  message: string;
}

export type PluginErrorCode =
  | 'InvalidParameter'
  | 'InUse'
  | 'Unsafe'
  | 'NotSupported'
  | 'Transient'
  | 'Backend';

/** Every plugin failure. `retryable`: trying again later may succeed without anyone's help. */
export class PluginError extends Error {
  constructor(
    readonly code: PluginErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PluginError';
  }
}

export interface VolumePlugin {
  /** The provisioner name a StorageClass uses, e.g. "kubernetes.io/host-path". */
  readonly name: string;
  /**
   * The CSI driver this in-tree plugin migrated to (csi-translation-lib), when it has one: a
   * VolumeAttributesClass may name it, and a PV with a class carries a `csi` source of it
   * (kube-apiserver allows volumeAttributesClassName only on CSI volumes).
   */
  readonly csiDriver?: string;
  /** Longest backing name the backend accepts (naming.ts shortens the prefix to fit). */
  readonly maxBackingNameLength: number;
  /** false when its volumes take no mount options (host-path): a class with some is refused. Default true. */
  readonly supportsMountOptions?: boolean;
  /** Problems with StorageClass parameters; [] when they are acceptable. */
  validateParameters(parameters: Record<string, string>): ParameterProblem[];
  /** Whether this plugin owns the volume a PV describes (used to pick a deleter/recycler). */
  handles(pv: PersistentVolume): boolean;
  provision(req: ProvisionRequest): Promise<ProvisionedVolume>;
  delete(req: DeleteRequest): Promise<void>;
  /** Scrub the volume's contents (not the volume itself). Absent: Recycle is not supported. */
  recycle?(pv: PersistentVolume, signal?: AbortSignal): Promise<void>;
  /** The usage provider for a PV of this plugin (du, statfs or nil). */
  metricsFor(pv: PersistentVolume): MetricsProvider;
  /** Backing volumes on the backend marked as this cluster's (for `orphans`). */
  listBackingVolumes?(clusterName: string): Promise<BackingVolume[]>;
  /**
   * Whether this process may act on a claim whose selected node is `selectedNode` (a node
   * agent: only its own). Absent: every claim of its provisioner.
   */
  servesNode?(selectedNode: string | undefined): boolean;
  /**
   * What this plugin can still provision for a StorageClass with `parameters` (a node agent
   * publishes it as CSIStorageCapacity): the total, and the largest single volume. Absent: the
   * plugin does not know (cloud quotas are not read).
   */
  storageCapacity?(parameters: Record<string, string>): Promise<{ capacityBytes: bigint; maximumVolumeBytes: bigint }>;
  /**
   * Puts back what a restart of the machine or the process undid, before the first operation
   * (host-path sized volumes: mounts a reboot dropped, loop devices a kill left attached).
   */
  recover?(): Promise<void>;
  /** Files a killed operation left behind (for `orphans`); listing only. */
  listStrayFiles?(): Promise<StrayFile[]>;
  /** Removes the stray files no operation in progress can own; returns those removed (controller start, `orphans --delete`). */
  removeStrayFiles?(): Promise<StrayFile[]>;
  /**
   * The expand capability: grows the backing volume, idempotently (a volume already that large
   * is success). Absent: claims of this plugin cannot grow (ControllerResizeInfeasible). A
   * PluginError that is not retryable is final for that size (Infeasible); any other is retried.
   */
  expand?(req: ExpandRequest): Promise<ExpandedVolume>;
  /** Problems with VolumeAttributesClass parameters; absent with `modify`: the plugin takes none. */
  validateAttributes?(attributes: Record<string, string>): ParameterProblem[];
  /** The modify capability: applies a VolumeAttributesClass to a volume, idempotently. */
  modify?(req: ModifyRequest): Promise<void>;
}
