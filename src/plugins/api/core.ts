/**
 * The core every volume plugin implements: who it is, which StorageClass parameters it takes,
 * which PVs are its own, provision, delete, and how its volumes' usage is measured. Everything
 * else a plugin may do is a capability of its own (capabilities/*.ts), found by its type guard
 * (`canExpand(plugin)`, ...), as sig-storage-lib-external-provisioner's Provisioner is two
 * methods and every extra an interface of its own. Plugins know nothing of queues, informers or
 * the API server: they get a typed request and return a typed result or throw a PluginError.
 *
 * Contracts every plugin must honour (checked by the core sub-suite of test/plugins/conformance/):
 * - provision is idempotent for a backing name: calling it again for the same name returns the
 *   same volume (it never creates a second one);
 * - delete is idempotent: a backing volume that is already gone is success;
 * - delete (and a capability's recycle) only ever touch what the plugin itself provisioned or what
 *   the PV names, and never anything outside the plugin's configured roots (fs-common/safe-path.ts);
 * - parameter problems are reported by validateParameters, naming the parameter, before anything
 *   is created.
 */
import type {
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeSpec,
  TopologySelectorTerm,
  VolumeNodeAffinity,
} from '@pv-controller/kube/types.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import type { ParameterProblem } from './errors.js';

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
   * The parameters of the claim's VolumeAttributesClass (KEP-3751), already accepted by the
   * modify capability's validateAttributes; absent when the claim names none.
   */
  attributes?: Record<string, string>;
  /**
   * How many backing volumes were made for this claim and deleted after failed attempts (the
   * claim's `pv-controller.io/backing-generation`; 0 when absent). A plugin that passes an
   * idempotency token to its cloud derives the token from it, so a retry never replays the token
   * of a volume that was deleted.
   */
  generation?: number;
  /**
   * Set when the claim has a data source (restore from a snapshot, clone of a claim): the same
   * value provisionFromSnapshot / provisionClone were called with. A cleanup after a claim deleted
   * mid-provision gets it back in DeleteRequest.provision, so a backend that repeats the create to
   * learn the volume's id (CSI) repeats it with the same content source.
   */
  contentSource?: VolumeContentSource;
  /** Aborted when the controller shuts down or the claim is being deleted. */
  signal?: AbortSignal;
}

/** What a new volume is filled from. */
export type VolumeContentSource =
  | { kind: 'snapshot'; snapshotId: string; restoreSize?: bigint; sourceVolumeMode?: 'Filesystem' | 'Block' }
  | { kind: 'volume'; source: PersistentVolume };

export interface ProvisionedVolume {
  /** The PV spec's volume source, e.g. `{ hostPath: { path, type } }` or `{ nfs: {...} }`. */
  source: Partial<PersistentVolumeSpec>;
  /** What was actually created, as a Quantity string (may be larger than requested). */
  capacity: string;
  nodeAffinity?: VolumeNodeAffinity;
  /** Labels to put on the PV (e.g. topology zone). */
  labels?: Record<string, string>;
  /** Annotations to put on the PV (e.g. a CSI volume's deletion Secret, which delete reads back). */
  annotations?: Record<string, string>;
}

/** What delete needs: the backing name, the PV when one exists, and the class parameters if known. */
export interface DeleteRequest {
  backingName: string;
  /** Present when deleting for a PV; absent when cleaning up after a claim deleted mid-provision. */
  pv?: PersistentVolume;
  parameters?: Record<string, string>;
  /** `onDelete: archive`: how long the archive is kept (the class's pv-controller.io/archive-retention); absent: until removed by hand. */
  archiveRetentionMs?: number;
  /**
   * Without a PV: the request the volume was (or may have been) provisioned with, built by the same
   * code as at provisioning. A backend that names volumes itself (CSI: the driver picks the id)
   * repeats the idempotent create with it to learn the id, then deletes that.
   */
  provision?: ProvisionRequest;
  signal?: AbortSignal;
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
  /** Whether this plugin owns the volume a PV describes (used to pick a deleter, recycler, expander). */
  handles(pv: PersistentVolume): boolean;
  /**
   * Why this plugin does not handle a PV that carries its kind of volume source (a hostPath outside
   * its roots), for the "no volume plugin matched" message; undefined when it has nothing to say.
   */
  declines?(pv: PersistentVolume): string | undefined;
  provision(req: ProvisionRequest): Promise<ProvisionedVolume>;
  delete(req: DeleteRequest): Promise<void>;
  /** The usage provider for a PV of this plugin (du, statfs, or nil when it cannot measure). */
  metricsFor(pv: PersistentVolume): MetricsProvider;
}
