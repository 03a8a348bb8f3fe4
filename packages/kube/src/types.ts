/**
 * Plain-JSON shapes of the Kubernetes objects pv-controller works with, exactly as they travel
 * over the wire (timestamps are RFC 3339 strings, quantities are strings). Only the fields the
 * project reads or writes are typed; everything else is carried through untouched.
 *
 * client-node's generated models are classes with Date fields; we keep runtime objects as plain
 * JSON so that the API server, the controller and the tests all see the same thing.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [extra: string]: unknown;
}

/** Any object the API server stores: kind/apiVersion/metadata plus whatever else. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [extra: string]: unknown;
}

export interface ObjectReference {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type PersistentVolumeAccessMode =
  | 'ReadWriteOnce'
  | 'ReadOnlyMany'
  | 'ReadWriteMany'
  | 'ReadWriteOncePod';

type PersistentVolumeReclaimPolicy = 'Retain' | 'Delete' | 'Recycle';
export type PersistentVolumeMode = 'Filesystem' | 'Block';
export type VolumePhase = 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';
export type ClaimPhase = 'Pending' | 'Bound' | 'Lost';

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

export interface VolumeNodeAffinity {
  required?: NodeSelector;
}

interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

interface HostPathVolumeSource {
  path: string;
  type?: string;
}
interface LocalVolumeSource {
  path: string;
  fsType?: string;
}
interface NFSVolumeSource {
  server: string;
  path: string;
  readOnly?: boolean;
}
interface AWSElasticBlockStoreVolumeSource {
  volumeID: string;
  fsType?: string;
  partition?: number;
  readOnly?: boolean;
}
interface GCEPersistentDiskVolumeSource {
  pdName: string;
  fsType?: string;
  partition?: number;
  readOnly?: boolean;
}
interface CinderPersistentVolumeSource {
  volumeID: string;
  fsType?: string;
  readOnly?: boolean;
}

export interface PersistentVolumeSpec {
  capacity?: Record<string, string>;
  accessModes?: PersistentVolumeAccessMode[];
  claimRef?: ObjectReference;
  persistentVolumeReclaimPolicy?: PersistentVolumeReclaimPolicy | string;
  storageClassName?: string;
  mountOptions?: string[];
  volumeMode?: PersistentVolumeMode | string;
  nodeAffinity?: VolumeNodeAffinity;
  volumeAttributesClassName?: string;
  hostPath?: HostPathVolumeSource;
  local?: LocalVolumeSource;
  nfs?: NFSVolumeSource;
  awsElasticBlockStore?: AWSElasticBlockStoreVolumeSource;
  gcePersistentDisk?: GCEPersistentDiskVolumeSource;
  cinder?: CinderPersistentVolumeSource;
  csi?: Record<string, unknown>;
  [source: string]: unknown;
}

interface PersistentVolumeStatus {
  phase?: VolumePhase | string;
  message?: string;
  reason?: string;
  lastPhaseTransitionTime?: string;
}

export interface PersistentVolume extends KubeObject {
  spec: PersistentVolumeSpec;
  status?: PersistentVolumeStatus;
}

interface ResourceRequirements {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

interface TypedLocalObjectReference {
  /** Serialised as null when absent (the field has no omitempty in core/v1). */
  apiGroup?: string | null;
  kind: string;
  name: string;
}

export interface PersistentVolumeClaimSpec {
  accessModes?: PersistentVolumeAccessMode[];
  selector?: LabelSelector;
  resources?: ResourceRequirements;
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: PersistentVolumeMode | string;
  dataSource?: TypedLocalObjectReference;
  dataSourceRef?: TypedLocalObjectReference & { namespace?: string };
  volumeAttributesClassName?: string;
}

export interface PersistentVolumeClaimCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface PersistentVolumeClaimStatus {
  phase?: ClaimPhase | string;
  accessModes?: PersistentVolumeAccessMode[];
  capacity?: Record<string, string>;
  conditions?: PersistentVolumeClaimCondition[];
  allocatedResources?: Record<string, string>;
  /** KEP-1790: where the resize of each resource stands (ControllerResizeInProgress, NodeResizePending, …). */
  allocatedResourceStatuses?: Record<string, ClaimResourceStatus | string>;
  currentVolumeAttributesClassName?: string;
  /** KEP-3751: a modification to another VolumeAttributesClass that has not completed. */
  modifyVolumeStatus?: ModifyVolumeStatus;
  [extra: string]: unknown;
}

export type ClaimResourceStatus =
  | 'ControllerResizeInProgress'
  | 'ControllerResizeInfeasible'
  | 'NodeResizePending'
  | 'NodeResizeInProgress'
  | 'NodeResizeInfeasible';

interface ModifyVolumeStatus {
  targetVolumeAttributesClassName?: string;
  /** Pending | InProgress | Infeasible */
  status: string;
}

/** storage.k8s.io/v1 VolumeAttributesClass: parameters a claim may ask of its volume after birth. */
export interface VolumeAttributesClass extends KubeObject {
  driverName: string;
  parameters?: Record<string, string>;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec: PersistentVolumeClaimSpec;
  status?: PersistentVolumeClaimStatus;
}

type VolumeBindingMode = 'Immediate' | 'WaitForFirstConsumer';

export interface TopologySelectorTerm {
  matchLabelExpressions?: { key: string; values: string[] }[];
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: PersistentVolumeReclaimPolicy | string;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: VolumeBindingMode | string;
  allowedTopologies?: TopologySelectorTerm[];
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating' | string };
}

interface EventSource {
  component?: string;
  host?: string;
}

/** core/v1 Event. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: 'Normal' | 'Warning' | string;
  eventTime?: string | null;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

interface PodVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [source: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    volumes?: PodVolume[];
    containers?: unknown[];
    [extra: string]: unknown;
  };
  status?: { phase?: string; [extra: string]: unknown };
}

export interface Node extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** meta/v1 Status, the body of every API error. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code: number;
}
