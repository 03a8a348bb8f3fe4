/**
 * Where the embedded server is known to answer differently from kube-apiserver, one line of why
 * each. The fidelity test fails on any other mismatch and reports listed cases that match again.
 */
import type { KnownDifferences } from './verdict.js';

/** Why a listed case differs; one reason may explain several cases. */
const WHY = {
  protobufTable: 'a Table offered only in protobuf: kube-apiserver answers 406 (Tables are JSON only); ours falls back to the plain JSON list, as it does for any Accept it cannot serve',
  reviewUser: 'the token user is pv-controller-admin, without the uid a real authenticator adds',
  healthChecks: 'health checks are this server\'s own (ping, log, storage, shutdown); kube-apiserver lists etcd and its post-start hooks',
  jsonPatchErrors: "JSON patch errors: ours adds causes and words the message otherwise than kube-apiserver's Go patch library",
  patchMediaType: 'a patch of an unsupported media type: kube-apiserver says "415: Unsupported Media Type" with empty details',
  immutableDiff: 'an immutability cause: kube-apiserver appends a diff of its internal Go struct, ours a JSON before/after',
  duplicateFields: 'duplicate JSON fields are not detected (the last one silently wins)',
  strictPatch: 'an unknown field in a patch under Strict: kube-apiserver answers 422 Invalid on the patched object, ours 400',
  wrongJsonType: 'a field of the wrong JSON type: kube-apiserver rejects it while decoding (400), ours decodes and validates it (422)',
  decodeWording: "body decode errors: same status and reason, kube-apiserver's Go decoder wording",
  notAcceptable: 'an Accept header nothing can serve: kube-apiserver 406 NotAcceptable, ours falls back to JSON',
  queryWording: "query parameter errors: same status and reason, kube-apiserver's wording",
  partialMetadata: 'PartialObjectMetadataList is not served; ours answers the full list',
};

function each(reason: string, ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

export const KNOWN_DIFFERENCES: KnownDifferences = {
  fields: [],
  cases: {
    ...each(WHY.protobufTable, ['pv-protobuf-table-only']),
    ...each(WHY.reviewUser, ['review-ssr']),
    ...each(WHY.healthChecks, ['health-readyz-verbose']),
    ...each(WHY.patchMediaType, ['pv-patch-plain-json', 'pv-protobuf-patch-body']),
    ...each(WHY.immutableDiff, ['pvc-update-immutable-spec', 'pv-update-immutable-source', 'kubectl-apply-force-conflicts', 'pvc-grow-unbound', 'pod-update-immutable-spec', 'pod-merge-replaces-containers']),
    ...each(WHY.duplicateFields, ['pv-duplicate-field-strict', 'pv-duplicate-field-warn']),
    ...each(WHY.strictPatch, ['pvc-merge-patch-unknown-strict']),
    ...each(WHY.wrongJsonType, ['pv-wrong-type-field']),
    ...each(WHY.decodeWording, ['pv-create-wrong-kind', 'pv-create-wrong-api-version']),
    ...each(WHY.notAcceptable, ['pv-accept-xml']),
    ...each(WHY.queryWording, ['list-continue-invalid']),
    ...each(WHY.partialMetadata, ['pv-partial-metadata']),
  },
};
