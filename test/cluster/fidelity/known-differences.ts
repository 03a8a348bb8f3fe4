/**
 * Where the embedded server is known to answer differently from kube-apiserver, one line of why
 * each. The fidelity test fails on any other mismatch and reports listed cases that match again.
 */
import type { KnownDifferences } from './verdict.js';

/** Why a listed case differs; one reason may explain several cases. */
const WHY = {
  serverSideApply: 'server-side apply (application/apply-patch+yaml) is not implemented',
  protobuf: 'protobuf request bodies are not decoded (kubectl sends them for create)',
  openApi: 'the OpenAPI documents are stubs without paths or schemas, so kubectl explain finds nothing',
  openApiIndexType: 'kube-apiserver serves the /openapi/v3 index as text/plain; ours as application/json',
  authorization: 'no authorization API: SelfSubjectAccessReview (kubectl auth can-i) is not served',
  aggregatedDiscovery: 'aggregated discovery (apidiscovery.k8s.io/v2) is not served; kubectl falls back to the legacy documents',
  version: '/version lacks the emulation and compatibility fields kube-apiserver 1.31+ reports',
  propagationPolicy: 'propagationPolicy is ignored: kube-apiserver adds the foregroundDeletion or orphan finalizer for the garbage collector',
  jsonPatchErrors: "JSON patch errors: ours adds causes and words the message otherwise than kube-apiserver's Go patch library",
  patchMediaType: 'a patch of an unsupported media type: kube-apiserver says "415: Unsupported Media Type" with empty details',
  immutableDiff: 'an immutability cause: kube-apiserver appends a diff of its internal Go struct, ours a JSON before/after',
  duplicateFields: 'duplicate JSON fields are not detected (the last one silently wins)',
  strictPatch: 'an unknown field in a patch under Strict: kube-apiserver answers 422 Invalid on the patched object, ours 400',
  wrongJsonType: 'a field of the wrong JSON type: kube-apiserver rejects it while decoding (400), ours decodes and validates it (422)',
  decodeWording: "body decode errors: same status and reason, kube-apiserver's Go decoder wording",
  requestMediaType: 'an unsupported request media type: kube-apiserver 415 UnsupportedMediaType, ours 400',
  notAcceptable: 'an Accept header nothing can serve: kube-apiserver 406 NotAcceptable, ours falls back to JSON',
  queryWording: "query parameter errors: same status and reason, kube-apiserver's wording",
  initialEventsBookmark: 'the initial-events-end bookmark: kube-apiserver\'s object carries an empty spec and status',
  partialMetadata: 'PartialObjectMetadataList is not served; ours answers the full list',
};

function each(reason: string, ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

export const KNOWN_DIFFERENCES: KnownDifferences = {
  fields: [
    { name: 'managedFields', path: /\.managedFields(\.|$)/, reason: 'the embedded server records no managedFields (server-side apply is not implemented)' },
    { name: 'column descriptions', path: /\.columnDefinitions\.\d+\.description$/, reason: 'Table column descriptions: kube-apiserver prints the whole OpenAPI field description, ours its first sentence' },
  ],
  cases: {
    ...each(WHY.serverSideApply, ['pvc-apply-create', 'pv-apply-update', 'kubectl-apply-server-side', 'kubectl-apply-server-side-again']),
    ...each(WHY.protobuf, ['kubectl-create-namespace', 'pv-create-protobuf-garbage']),
    ...each(WHY.openApi, ['openapi-v2-json', 'openapi-v2-protobuf', 'openapi-v3-core', 'openapi-v3-core-pvc-spec', 'openapi-v3-storage', 'openapi-v3-coordination', 'openapi-v3-events', 'kubectl-explain-pvc', 'kubectl-explain-field']),
    ...each(WHY.openApiIndexType, ['openapi-v3-index']),
    ...each(WHY.authorization, ['kubectl-auth-can-i', 'kubectl-auth-can-i-namespaced']),
    ...each(WHY.aggregatedDiscovery, ['discovery-aggregated-api', 'discovery-aggregated-apis']),
    ...each(WHY.version, ['discovery-version']),
    ...each(WHY.propagationPolicy, ['lease-delete-foreground', 'lease-delete-orphan']),
    ...each(WHY.jsonPatchErrors, ['pv-json-patch-not-a-list']),
    ...each(WHY.patchMediaType, ['pv-patch-plain-json']),
    ...each(WHY.immutableDiff, ['pvc-update-immutable-spec', 'pv-update-immutable-source', 'pod-update-immutable-spec', 'pod-merge-replaces-containers']),
    ...each(WHY.duplicateFields, ['pv-duplicate-field-strict', 'pv-duplicate-field-warn']),
    ...each(WHY.strictPatch, ['pvc-merge-patch-unknown-strict']),
    ...each(WHY.wrongJsonType, ['pv-wrong-type-field']),
    ...each(WHY.decodeWording, ['pv-create-wrong-kind', 'pv-create-wrong-api-version']),
    ...each(WHY.requestMediaType, ['pv-create-text-plain']),
    ...each(WHY.notAcceptable, ['pv-accept-xml']),
    ...each(WHY.queryWording, ['field-pv-phase', 'field-unsupported', 'list-continue-invalid']),
    ...each(WHY.initialEventsBookmark, ['watch-initial-events-bookmark']),
    ...each(WHY.partialMetadata, ['pv-partial-metadata']),
  },
};
