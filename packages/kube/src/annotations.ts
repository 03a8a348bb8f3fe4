/**
 * Every annotation, finalizer, label and tag string the project reads or writes, in one place.
 * Upstream names are Kubernetes' own (k8s.io/api and pv_controller.go's own constants); names under
 * `pv-controller.io/` are this project's.
 */

// Binding (upstream).
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_MIGRATED_TO = 'pv.kubernetes.io/migrated-to';
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const ANN_PRE_RESIZE_CAPACITY = 'volume.alpha.kubernetes.io/pre-resize-capacity';
/** On a claim: who grows its volume (kube-controller-manager writes the plugin's name with Resizing). */
export const ANN_STORAGE_RESIZER = 'volume.kubernetes.io/storage-resizer';
export const ANN_DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_STORAGE_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

/** Value the controller writes into its "yes" annotations. */
export const ANN_VALUE_YES = 'yes';

/** StorageClass.provisioner meaning "no dynamic provisioning". */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

// Finalizers.
export const FINALIZER_PV_PROTECTION = 'kubernetes.io/pv-protection';
export const FINALIZER_PVC_PROTECTION = 'kubernetes.io/pvc-protection';
/** StorageObjectInUseProtection puts it on every VolumeAttributesClass; kube-controller-manager's vac-protection removes it. */
export const FINALIZER_VAC_PROTECTION = 'kubernetes.io/vac-protection';
/** kube-apiserver's CustomResourceDefinition delete: the definition stays until its instances are deleted. */
export const FINALIZER_CRD_INSTANCE_CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';
/** On provisioned PVs with policy Delete: the backing volume is deleted before the PV object goes. */
export const FINALIZER_PV_CONTROLLER = 'kubernetes.io/pv-controller';
export const FINALIZER_EXTERNAL_PROVISIONER = 'external-provisioner.volume.kubernetes.io/finalizer';
/** On a claim while its volume is being provisioned: durable intent, so a crash never leaks. */
export const FINALIZER_PROVISIONING = 'pv-controller.io/provisioning';
/**
 * On a claim other claims are being cloned from, beside external-provisioner's cloning-protection
 * finalizer: the clones in progress ("<name>/<uid>", comma-separated). Each clone adds and removes
 * its own entry in a write guarded by the claim's resourceVersion, and the one removing the last
 * entry removes the finalizer, so two clones of one claim never strip each other's protection.
 * Only ever a reason to keep the finalizer.
 */
export const ANN_CLONES_IN_PROGRESS = 'pv-controller.io/clones-in-progress';

// Reclaim retries (this project's; upstream kept them in memory only).
export const ANN_RECLAIM_FAILED_ATTEMPTS = 'pv-controller.io/reclaim-failed-attempts';
export const ANN_RECLAIM_LAST_ATTEMPT = 'pv-controller.io/reclaim-last-attempt';
/**
 * On a PV whose backing volume our delete has removed (the time it did): what is left is only
 * the PV object, whatever process finishes it, and no reclaim attempt is charged for that.
 */
export const ANN_BACKING_DELETED = 'pv-controller.io/backing-deleted';

// Released-volume lifecycle (this project's; docs/lifecycle.md). All three are user-writable
// hints: a TTL deletes only a volume whose plugin proves pv-controller made it (the provenance
// capability), and a reuse request is checked against the live claim before claimRef is cleared.
/**
 * On a StorageClass (copied onto the PVs it provisions) or any PV: a Go duration ("72h") a
 * Released volume with policy Retain is kept before it is deleted as its plugin deletes.
 */
export const ANN_RELEASED_TTL = 'pv-controller.io/released-ttl';
/** On a Released PV with a TTL: when it will be deleted (RFC 3339), written once when it is first seen Released. */
export const ANN_RELEASED_DEADLINE = 'pv-controller.io/released-deadline';
/** On a Released PV: "true" makes it Available again (claimRef cleared); "wipe" scrubs its data first (the Recycle path). */
export const ANN_REUSE = 'pv-controller.io/reuse';
export const REUSE_KEEP_DATA = 'true';
export const REUSE_WIPE = 'wipe';
/** On a StorageClass whose file plugin archives on delete (`onDelete: archive`): how long an archive is kept (a Go duration); absent: until removed by hand. */
export const ANN_ARCHIVE_RETENTION = 'pv-controller.io/archive-retention';
/**
 * On a claim: how many backing volumes the provisioner deleted after failed attempts for it. A
 * plugin whose cloud keys creation by an idempotency token (EBS's ClientToken) derives the
 * token from it: the token of a deleted volume is spent (EC2 answers it with that deleted volume
 * for as long as it remembers the token), so the next attempt needs another.
 */
export const ANN_BACKING_GENERATION = 'pv-controller.io/backing-generation';

// Node gone (this project's): a node-local PV whose Node object was deleted (node-gone/). Its
// state is kept in a Lease in the controller's own namespace (node-gone/record.ts), never read
// from the PV: a PV's annotations are anyone's who may update PVs.
/** On the PV while node-gone replaces its claim ("namespace/name"): tells the reclaimer (and a reader) to leave the volume alone. Only ever a reason not to delete. */
export const ANN_NODE_GONE_CLAIM = 'pv-controller.io/node-gone-claim';
/** On a PV: written by versions before 0.2 (the clock); no longer read. */
export const ANN_NODE_GONE_SINCE = 'pv-controller.io/node-gone-since';
/** On the record: when a Retain PV of a gone node was kept (RFC 3339): said once. */
export const ANN_NODE_GONE_KEPT = 'pv-controller.io/node-gone-kept';
/** On the record: the PV it is about, its uid, and the node the PV is pinned to. */
export const ANN_NODE_GONE_VOLUME = 'pv-controller.io/node-gone-volume';
export const ANN_NODE_GONE_VOLUME_UID = 'pv-controller.io/node-gone-volume-uid';
export const ANN_NODE_GONE_NODE = 'pv-controller.io/node-gone-node';
/** On the record: the claim to re-create (JSON), copied from the live claim before it is deleted. */
export const ANN_NODE_GONE_CLAIM_TEMPLATE = 'pv-controller.io/node-gone-claim-template';
/** Label on every node-gone record Lease (value "true"): how a starting controller lists them. */
export const LABEL_NODE_GONE_RECORD = 'pv-controller.io/node-gone-record';

// Cloud tags and the host-path/NFS metadata record carry the same three keys.
export const TAG_CREATED_FOR_PVC_NAME = 'kubernetes.io/created-for/pvc/name';
export const TAG_CREATED_FOR_PVC_NAMESPACE = 'kubernetes.io/created-for/pvc/namespace';
export const TAG_CREATED_FOR_PV_NAME = 'kubernetes.io/created-for/pv/name';
// A cloud snapshot carries the VolumeSnapshot and content it was cut for (the keys the GCE PD and EBS CSI drivers tag snapshots with).
export const TAG_CREATED_FOR_SNAPSHOT_NAME = 'kubernetes.io/created-for/volumesnapshot/name';
export const TAG_CREATED_FOR_SNAPSHOT_NAMESPACE = 'kubernetes.io/created-for/volumesnapshot/namespace';
export const TAG_CREATED_FOR_SNAPSHOT_CONTENT_NAME = 'kubernetes.io/created-for/volumesnapshotcontent/name';
/** AWS: `kubernetes.io/cluster/<cluster-name>` = `owned`. */
export const TAG_CLUSTER_PREFIX = 'kubernetes.io/cluster/';
export const TAG_CLUSTER_OWNED = 'owned';

// Well-known node labels (topology).
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

/** Event source component, as upstream. */
export const EVENT_COMPONENT = 'persistentvolume-controller';

// Cloud plugins (appended by h7).
/** AWS EC2 tag whose value the console shows as the volume's name. */
export const TAG_AWS_NAME = 'Name';
/** Pre-1.17 zone label, still accepted in allowedTopologies and read from old PVs. */
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
/** Separator of several zones in one PV zone label (regional disks), as upstream. */
export const ZONE_LABEL_MULTI_ZONE_DELIMITER = '__';

/** Deprecated beta annotation carrying PV mount options (validated per volume type by the server). */
export const ANN_MOUNT_OPTIONS = 'volume.beta.kubernetes.io/mount-options';
/** Label kube-apiserver sets on every namespace (value = the namespace's name). */
export const LABEL_NAMESPACE_NAME = 'kubernetes.io/metadata.name';
/** Namespace spec finalizer that the namespace lifecycle removes after emptying it. */
export const FINALIZER_NAMESPACE_KUBERNETES = 'kubernetes';
/** Garbage-collector finalizers a delete's propagationPolicy adds: dependents are orphaned, or deleted first. */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** The ServiceAccount a `kubernetes.io/service-account-token` Secret is for; kube-apiserver requires it. */
export const ANN_SERVICE_ACCOUNT_NAME = 'kubernetes.io/service-account.name';

// CSI volume plugin (issue 26), as external-provisioner names them.
/** StorageClass parameters under this prefix are for the provisioner, never passed to the driver. */
export const CSI_PARAMETER_PREFIX = 'csi.storage.k8s.io/';
/** Extra-create-metadata parameters CreateVolume carries (external-provisioner's `--extra-create-metadata`). */
export const CSI_PARAM_PVC_NAME = 'csi.storage.k8s.io/pvc/name';
export const CSI_PARAM_PVC_NAMESPACE = 'csi.storage.k8s.io/pvc/namespace';
export const CSI_PARAM_PV_NAME = 'csi.storage.k8s.io/pv/name';
/** The filesystem of a mount volume (and the deprecated unprefixed `fstype`, matched case-insensitively). */
export const CSI_PARAM_FSTYPE = 'csi.storage.k8s.io/fstype';
export const CSI_PARAM_FSTYPE_DEPRECATED = 'fstype';
/** volumeAttributes key naming the provisioner that made a CSI volume. */
export const CSI_ATTR_PROVISIONER_IDENTITY = 'storage.kubernetes.io/csiProvisionerIdentity';
/** PV annotations naming the Secret DeleteVolume needs, resolved at provisioning (the claim may be gone at delete). */
export const ANN_CSI_DELETION_SECRET_NAME = 'volume.kubernetes.io/provisioner-deletion-secret-name';
export const ANN_CSI_DELETION_SECRET_NAMESPACE = 'volume.kubernetes.io/provisioner-deletion-secret-namespace';
/** PV annotations naming the Secret ControllerModifyVolume needs. */
export const ANN_CSI_MODIFY_SECRET_NAME = 'volume.kubernetes.io/controller-modify-secret-name';
export const ANN_CSI_MODIFY_SECRET_NAMESPACE = 'volume.kubernetes.io/controller-modify-secret-namespace';
/** PV annotation: the proof (HMAC of driver, volume handle, PV name) that pv-controller made this CSI volume; DeleteVolume needs it. */
export const ANN_CSI_PROVENANCE = 'pv-controller.io/csi-provenance';
