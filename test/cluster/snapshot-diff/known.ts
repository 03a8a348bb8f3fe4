/**
 * Where our snapshot controller's converged state is known to differ from external-snapshotter's
 * and external-provisioner's, and why. A difference is explained when its path matches (and, for
 * a scenario-bound entry, in that scenario, and for an entry with `text`, when either side's value
 * matches it: events all share the path `events`); the differential fails on any other, and on an
 * entry no scenario shows any more. Every entry comes from a difference actually seen (the first
 * run of our side against upstream's, 2026-12-02), with its reason.
 */
import type { ViewDifference } from './compare.js';

export interface KnownSnapshotDifference {
  name: string;
  /** Matched against the difference's path ("snapshots.snap.status.error"). */
  path: RegExp;
  /** Only in this scenario. */
  scenario?: string;
  /** Matched against either side's value (an event's "object: type reason: message"). */
  text?: RegExp;
  reason: string;
}

/** The three error scenarios where ours resolves the snapshot's class after its first writes. */
const CLASS_ORDER_SCENARIOS = ['sd-pending-claim', 'sd-missing-claim', 'sd-missing-class'];

export const KNOWN_SNAPSHOT_DIFFERENCES: KnownSnapshotDifference[] = [
  {
    name: 'provisioning events',
    path: /^events$/,
    text: /^PersistentVolumeClaim [^:]+: Normal (ExternalProvisioning|Provisioning|ProvisioningSucceeded): /,
    reason:
      'the provisioning of the source claims, not the snapshots: kube-controller-manager announces a hand-off to external-provisioner (ExternalProvisioning) and external-provisioner a start (Provisioning); ours provisions in the same process, so there is no hand-off, and its ProvisioningSucceeded names the driver, as kube-controller-manager\'s in-tree message does (the same difference as in the CSI side-by-side)',
  },
  {
    name: 'ProvisioningFailed names the class',
    path: /^events$/,
    text: /^PersistentVolumeClaim [^:]+: Warning ProvisioningFailed: (Failed to provision volume with StorageClass "[^"]+": )?error getting handle for DataSource/,
    reason:
      'the same refusal in the same words (restoreSize, KEP-3141), prefixed as every provisioning failure of ours is ("Failed to provision volume with StorageClass ..."), as kube-controller-manager words its own; external-provisioner reports data-source errors bare',
  },
  {
    name: 'proofs of what ours made',
    path: /\.annotations\.pv-controller\.io\/(csi|snapshot)-provenance$/,
    reason:
      'ours signs each CSI volume and each snapshot it cuts (an HMAC under a key only the controller reads: docs/csi.md, docs/snapshots.md) and deletes on the backend only what carries a valid proof; external-provisioner and external-snapshotter trust the handle they find',
  },
  {
    name: 'bound-by-controller on provisioned PVs',
    path: /^volumes\.[^.]+\.annotations\.pv\.kubernetes\.io\/bound-by-controller$/,
    reason:
      'ours binds the PV it provisions through its binder, which marks the PV pv.kubernetes.io/bound-by-controller as kube-controller-manager marks the PVs it binds; external-provisioner creates its PV pre-bound, so kube-controller-manager leaves it unmarked (the same difference as in the CSI side-by-side)',
  },
  {
    name: 'provisioner annotation on a claim never provisioned',
    path: /^claims\.[^.]+\.annotations\.volume(\.beta)?\.kubernetes\.io\/storage-provisioner$/,
    reason:
      'ours annotates a claim with its storage-provisioner only when it commits to provisioning it (a restore refused for its size, a populator\'s claim are not); kube-controller-manager annotates first and the refusal comes after (the controller differential lists the same difference)',
  },
  {
    name: 'PV finalizer',
    path: /^volumes\.[^.]+\.finalizers$/,
    reason:
      'the HonorPVReclaimPolicy finalizer of the PV is ours (kubernetes.io/pv-controller), since ours deletes the volume, rather than external-provisioner\'s external-provisioner.volume.kubernetes.io/finalizer (docs/csi.md)',
  },
  ...['snapshots.snap.finalizers', 'snapshots.snap.status.error', 'snapshots.snap.status.readyToUse', 'claims.src.finalizers', 'events'].flatMap((path) =>
    CLASS_ORDER_SCENARIOS.map((scenario) => ({
      name: 'class resolved after the first writes',
      path: new RegExp(`^${path.replace(/\./g, '\\.')}$`),
      scenario,
      ...(path === 'events' ? { text: /^VolumeSnapshot snap: Warning (SetDefaultSnapshotClassFailed|GetSnapshotClassFailed|SnapshotContentCreationFailed): / } : {}),
      reason:
        'ours puts the snapshot\'s finalizers (and the claim\'s pvc-as-source-protection) in place and sets readyToUse false before it resolves the class and the source claim, and reports a failure there as SnapshotContentCreationFailed "failed to get input parameters"; external-snapshotter resolves the (default) class first and reports SetDefaultSnapshotClassFailed / GetSnapshotClassFailed with no finalizer. The outcome is the same — no content, no driver snapshot, the snapshot waits with the cause in status.error — and the order is not changed this round',
    })),
  ),
  {
    name: 'cloning protection released',
    path: /^claims\.src\.finalizers$/,
    scenario: 'sd-clone',
    reason:
      'ours takes provisioner.storage.kubernetes.io/cloning-protection off the source as soon as the clone\'s volume exists (per clone, provisioner/clone-protection.ts); external-provisioner v6.4.0 still had it on the source when the state settled, removing it only on a later look at the source',
  },
];

export function explainedBy(scenario: string, d: ViewDifference): KnownSnapshotDifference | undefined {
  const texts = [d.upstream, d.ours].filter((v): v is string => typeof v === 'string');
  return KNOWN_SNAPSHOT_DIFFERENCES.find(
    (k) => (k.scenario === undefined || k.scenario === scenario) && k.path.test(d.path) && (k.text === undefined || texts.some((t) => k.text!.test(t))),
  );
}
