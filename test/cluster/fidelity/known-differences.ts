/**
 * Where the embedded server is known to answer differently from kube-apiserver, one line of why
 * each. The fidelity test fails on any other mismatch and reports listed cases that match again.
 */
import type { KnownDifferences } from './verdict.js';

/** Why a listed case differs; one reason may explain several cases. */
const WHY = {
  reviewUser: 'the token user is pv-controller-admin, without the uid a real authenticator adds',
  healthChecks: 'health checks are this server\'s own (ping, log, storage, shutdown); kube-apiserver lists etcd and its post-start hooks',
  immutableDiff: 'an immutability cause: kube-apiserver appends a diff of its internal Go struct, ours a JSON before/after',
  csiDriverDecoder: "CSIDriver's spec.preventPodSchedulingIfMissing (1.37) is not in client-node 1.4.0's models our decoder reads, so a write that carries the stored object back (any patch result) warns of it as an unknown field and its managedFields gain f:spec's '.'; a decoder gap, not a merge one: the merged ownerReferences match",
  csiNodeHealth: "CSINode's status.storageHealth (1.37, CSIVolumeHealth) is not in client-node 1.4.0's models: our decoder keeps its items as they come, so an empty healthConditions list a status write sends is owned in managedFields, where Go's omitempty drops it; the stored status matches (both drop storageHealth, the gate being off)",
  goStructValue: "a cause whose bad value is a list of Go structs: kube-apiserver prints its internal type's fields (Name, Served, Schema: null), ours the object's JSON",
  strictPatch: "an unknown field in a patch under Strict: the 422 quotes the patched object's JSON, kube-apiserver's in Go's struct field order (keys sorted in the objects the patch changed), ours in the stored object's key order",
};

function each(reason: string, ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

export const KNOWN_DIFFERENCES: KnownDifferences = {
  fields: [],
  cases: {
    ...each(WHY.reviewUser, ['review-ssr']),
    ...each(WHY.healthChecks, ['health-readyz-verbose']),
    ...each(WHY.immutableDiff, ['pvc-update-immutable-spec', 'pv-update-immutable-source', 'kubectl-apply-force-conflicts', 'pvc-grow-unbound', 'pod-update-immutable-spec', 'pod-merge-replaces-containers']),
    ...each(WHY.strictPatch, ['pvc-merge-patch-unknown-strict']),
    ...each(WHY.goStructValue, ['crd-no-storage']),
    ...each(WHY.csiDriverDecoder, ['csidriver-strategic-owner-references']),
    ...each(WHY.csiNodeHealth, ['csinode-status-put', 'csinode-status-merge-patch', 'csinode-status-ignores-spec']),
  },
};
