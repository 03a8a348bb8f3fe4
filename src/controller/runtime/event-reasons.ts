/**
 * Every Event reason this controller emits, each defined once, in upstream's words: the binder's,
 * provisioner's and reclaimer's reasons are those of kube-controller-manager's
 * `pkg/controller/volume/events` (ClaimLost, ClaimMisbound and VolumeUnknownReclaimPolicy are
 * literals in its `pv_controller.go`); `Provisioning` is external-provisioner's; the expansion and
 * modification reasons are external-resizer's (it defines them for upstream's resizers). Only
 * `ReferencedNodeDeleted` is sig-storage-local-static-provisioner's cleanup controller's.
 * ProvisioningCleanedUp is this controller's own: it deletes the backing volume of a claim that
 * no longer wants it, which upstream leaves to a PV it never creates; so are the `NodeGone…`
 * reasons of node-gone, which re-creates a claim where upstream's cleanup only deletes it. The
 * messages live beside the code that emits them (binder/events.ts, provisioner/events.ts,
 * reclaimer/events.ts, node-gone/events.ts).
 */
export const EventReason = {
  // binding
  FailedBinding: 'FailedBinding',
  VolumeMismatch: 'VolumeMismatch',
  ClaimLost: 'ClaimLost',
  ClaimMisbound: 'ClaimMisbound',
  WaitForFirstConsumer: 'WaitForFirstConsumer',
  WaitForPodScheduled: 'WaitForPodScheduled',
  ExternalProvisioning: 'ExternalProvisioning',
  // provisioning
  Provisioning: 'Provisioning',
  ProvisioningSucceeded: 'ProvisioningSucceeded',
  ProvisioningFailed: 'ProvisioningFailed',
  ProvisioningCleanupFailed: 'ProvisioningCleanupFailed',
  ProvisioningCleanedUp: 'ProvisioningCleanedUp',
  // reclaiming
  /** Normal: the backend says the volume is still in use; deletion is retried, not counted. */
  VolumeDelete: 'VolumeDelete',
  VolumeFailedDelete: 'VolumeFailedDelete',
  VolumeFailedRecycle: 'VolumeFailedRecycle',
  VolumeRecycled: 'VolumeRecycled',
  VolumeUnknownReclaimPolicy: 'VolumeUnknownReclaimPolicy',
  // released-volume lifecycle (ours: docs/lifecycle.md)
  /** Normal: a Released volume's TTL started; the message says when it will be deleted. */
  ReleasedDeadlineSet: 'ReleasedDeadlineSet',
  /** Normal: the volume was bound or made Available again before its deadline. */
  ReleasedDeadlineCleared: 'ReleasedDeadlineCleared',
  /** Normal: the deadline passed; the volume is being deleted as its plugin deletes. */
  ReleasedTTLExpired: 'ReleasedTTLExpired',
  /** Warning: the TTL is not a Go duration, or its plugin cannot prove the volume is ours: nothing is deleted. */
  ReleasedTTLInvalid: 'ReleasedTTLInvalid',
  ReleasedTTLRefused: 'ReleasedTTLRefused',
  /** Normal: a Released volume's claimRef was cleared on request (pv-controller.io/reuse). */
  VolumeReused: 'VolumeReused',
  /** Warning: a reuse request was refused (bound, claim still there, no recycler for a wipe). */
  VolumeReuseRefused: 'VolumeReuseRefused',
  // expanding: external-resizer's pkg/util/events.go; ExternalExpanding is kube-controller-manager's
  Resizing: 'Resizing',
  VolumeResizeFailed: 'VolumeResizeFailed',
  VolumeResizeSuccessful: 'VolumeResizeSuccessful',
  FileSystemResizeRequired: 'FileSystemResizeRequired',
  ExternalExpanding: 'ExternalExpanding',
  /** Ours: on a StorageClass whose allowVolumeExpansion its plugin can never honour. */
  ExpansionNeverPossible: 'ExpansionNeverPossible',
  // modifying (VolumeAttributesClass): external-resizer's modify controller
  VolumeModify: 'VolumeModify',
  VolumeModifySuccessful: 'VolumeModifySuccessful',
  VolumeModifyFailed: 'VolumeModifyFailed',
  // node gone
  /** Warning: a local volume's Node was deleted; the delay has started. */
  ReferencedNodeDeleted: 'ReferencedNodeDeleted',
  /** Normal: the Node came back before its volumes were released. */
  NodeGoneNodeReturned: 'NodeGoneNodeReturned',
  NodeGoneClaimInUse: 'NodeGoneClaimInUse',
  NodeGoneClaimRecreated: 'NodeGoneClaimRecreated',
  NodeGoneVolumeDeleted: 'NodeGoneVolumeDeleted',
  NodeGoneVolumeKept: 'NodeGoneVolumeKept',
  // snapshots: external-snapshotter's common controller (on VolumeSnapshots)
  SnapshotValidationError: 'SnapshotValidationError',
  SnapshotFinalizerError: 'SnapshotFinalizerError',
  SnapshotDeletePending: 'SnapshotDeletePending',
  SnapshotContentObjectDeleteError: 'SnapshotContentObjectDeleteError',
  SnapshotContentMissing: 'SnapshotContentMissing',
  SnapshotMisbound: 'SnapshotMisbound',
  SnapshotBindFailed: 'SnapshotBindFailed',
  SnapshotStatusUpdateFailed: 'SnapshotStatusUpdateFailed',
  SnapshotHandleSet: 'SnapshotHandleSet',
  SnapshotPVCSourceMissing: 'SnapshotPVCSourceMissing',
  SnapshotContentCreationFailed: 'SnapshotContentCreationFailed',
  SnapshotContentMismatch: 'SnapshotContentMismatch',
  SnapshotContentMisbound: 'SnapshotContentMisbound',
  CreateSnapshotContentFailed: 'CreateSnapshotContentFailed',
  CreatingSnapshot: 'CreatingSnapshot',
  SnapshotCreated: 'SnapshotCreated',
  SnapshotReady: 'SnapshotReady',
  ErrorPVCFinalizer: 'ErrorPVCFinalizer',
  GetSnapshotClassFailed: 'GetSnapshotClassFailed',
  SetDefaultSnapshotClassFailed: 'SetDefaultSnapshotClassFailed',
  // snapshots: on VolumeSnapshotContents (ContentValidationError is the common controller's, the rest csi-snapshotter's)
  ContentValidationError: 'ContentValidationError',
  SnapshotCreationFailed: 'SnapshotCreationFailed',
  SnapshotContentCheckandUpdateFailed: 'SnapshotContentCheckandUpdateFailed',
  SnapshotDeleteError: 'SnapshotDeleteError',
} as const;

export type EventReason = (typeof EventReason)[keyof typeof EventReason];
