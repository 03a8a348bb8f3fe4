/**
 * Where the embedded server is known to answer differently from kube-apiserver, one line of why
 * each. The fidelity test fails on any other mismatch and reports listed cases that match again.
 */
import type { KnownDifferences } from './verdict.js';

/** Why a listed case differs; one reason may explain several cases. */
const WHY = {
  applyWarnings: 'a server-side apply answers without the strategy\'s warnings (here the Recycle deprecation) that kube-apiserver sends',
  reviewDiscoveryHash: 'discovery gives the review kinds a storageVersionHash; kube-apiserver gives none to resources it does not store',
  protobufPodQos: 'a Pod created from a protobuf body is stored without the QoS class that Pod admission sets on a JSON create',
  reviewReason: 'an allowed access review says why (the embedded server allows its one user everything); kube-apiserver allows system:masters without a reason',
  rulesReview: "a SelfSubjectRulesReview lists the wildcard rules only; kube-apiserver adds the rules of the system:basic-user and public-info roles, which the wildcard covers",
  reviewUser: 'the token user is pv-controller-admin, without the uid a real authenticator adds',
  healthChecks: 'health checks are this server\'s own (ping, log, storage, shutdown); kube-apiserver lists etcd and its post-start hooks',
  serviceAddresses: 'ClusterIPs are handed out lowest-free from 10.0.0.0/24; kube-apiserver picks at random in the same range',
  kubernetesService: "the kubernetes Service's targetPort is this server's port (each server its own)",
  propagationPolicy: 'propagationPolicy is ignored: kube-apiserver adds the foregroundDeletion or orphan finalizer for the garbage collector',
  immutableDiff: 'an immutability cause: kube-apiserver appends a diff of its internal Go struct, ours a JSON before/after',
  strictPatch: "an unknown field in a patch under Strict: the 422 quotes the patched object's JSON, kube-apiserver's in Go's struct field order (keys sorted in the objects the patch changed), ours in the stored object's key order",
  initialEventsBookmark: 'the initial-events-end bookmark: kube-apiserver\'s object carries an empty spec and status',
};

function each(reason: string, ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

export const KNOWN_DIFFERENCES: KnownDifferences = {
  fields: [
    {
      name: 'managedFields of defaulted Event fields',
      path: /\.managedFields\.\d+\.fieldsV1\.f:(reportingComponent|reportingInstance)$/,
      reason: 'ours defaults a core Event\'s empty reportingComponent and reportingInstance before field ownership is computed, so the creator owns them; kube-apiserver serialises them empty without anyone owning them',
    },
    {
      name: 'managedFields of null condition times',
      path: /\.managedFields\.\d+\.fieldsV1\.f:status\.f:conditions\.k:[^.]+\.f:(lastProbeTime|lastTransitionTime|lastHeartbeatTime)$/,
      reason: 'kube-apiserver\'s writer owns the null times of a condition it wrote; ours writes the nulls after ownership is computed, so nobody owns them',
    },
    {
      name: 'managedFields of Service defaults',
      path: /\.managedFields\.\d+\.fieldsV1\.f:spec\.(\.|f:ports\.)/,
      resource: 'Service',
      reason: 'Service defaulting (ports, the headless and ExternalName shapes) and field ownership are computed in a different order than kube-apiserver\'s, so the spec\'s own and its ports\' entries differ',
    },
  ],
  cases: {
    ...each(WHY.reviewReason, ['review-ssar-allowed']),
    ...each(WHY.rulesReview, ['review-ssrr']),
    ...each(WHY.reviewUser, ['review-ssr']),
    ...each(WHY.healthChecks, ['health-readyz-verbose']),
    ...each(WHY.serviceAddresses, ['svc-create', 'svc-update-missing']),
    ...each(WHY.kubernetesService, ['svc-kubernetes']),
    ...each(WHY.propagationPolicy, ['lease-delete-foreground', 'lease-delete-orphan']),
    ...each(WHY.propagationPolicy, ['lease-delete-foreground', 'lease-delete-orphan']),
    ...each(WHY.immutableDiff, ['pvc-update-immutable-spec', 'pv-update-immutable-source', 'kubectl-apply-force-conflicts', 'pvc-grow-unbound', 'pod-update-immutable-spec', 'pod-merge-replaces-containers']),
    ...each(WHY.strictPatch, ['pvc-merge-patch-unknown-strict']),
    ...each(WHY.applyWarnings, ['pv-apply-force']),
    ...each(WHY.reviewDiscoveryHash, ['discovery-authorization-v1', 'discovery-authentication-v1']),
    ...each(WHY.protobufPodQos, ['pod-protobuf-create', 'pod-protobuf-get']),
    ...each(WHY.initialEventsBookmark, ['watch-initial-events-bookmark']),
  },
};
