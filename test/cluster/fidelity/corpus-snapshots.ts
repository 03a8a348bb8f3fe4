/**
 * The snapshot.storage.k8s.io kinds: custom resources on kube-apiserver (external-snapshotter's
 * CRDs, installed by the fidelity test), served natively from the same definitions by ours. CRUD,
 * patches (strategic merge refused), server-side apply, the status subresource and generation,
 * pruning and field validation, the schema's checks and CEL rules, selectors, watch, Tables,
 * discovery, protobuf (not offered for custom resources) and kubectl.
 */
import type { Case, HttpStep } from './case.js';
import { APPLY, JSON_PATCH, MERGE, OWN, STRATEGIC, TABLE, defineCase, del, get, http, patch, post, put, watch, withQuery, type Kind } from './fixtures.js';

const GV = 'snapshot.storage.k8s.io/v1';
const labels = { case: '{id}' };

export const VS: Kind = {
  resource: 'VolumeSnapshot',
  collection: `/apis/${GV}/namespaces/{ns}/volumesnapshots`,
  sample: (name) => ({
    apiVersion: GV, kind: 'VolumeSnapshot', metadata: { name, labels },
    spec: { volumeSnapshotClassName: 'csi-fidelity', source: { persistentVolumeClaimName: 'data' } },
  }),
  edit: { metadata: { labels: { tier: 'gold' } }, spec: { volumeSnapshotClassName: 'other' } },
  jsonEdit: [{ op: 'replace', path: '/spec/volumeSnapshotClassName', value: 'other' }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { readyToUse: true, restoreSize: '1Gi', boundVolumeSnapshotContentName: 'content-1', creationTime: '2026-01-01T00:00:00Z' } },
};

export const VSC: Kind = {
  resource: 'VolumeSnapshotContent',
  collection: `/apis/${GV}/volumesnapshotcontents`,
  sample: (name) => ({
    apiVersion: GV, kind: 'VolumeSnapshotContent', metadata: { name, labels },
    spec: {
      deletionPolicy: 'Delete', driver: 'hostpath.csi.k8s.io', source: { volumeHandle: 'vol-{id}' },
      volumeSnapshotRef: { name: 'snap', namespace: 'default' }, volumeSnapshotClassName: 'csi-fidelity',
    },
  }),
  edit: { metadata: { labels: { tier: 'gold' } }, spec: { deletionPolicy: 'Retain' } },
  jsonEdit: [{ op: 'replace', path: '/spec/deletionPolicy', value: 'Retain' }],
  status: { status: { readyToUse: true, restoreSize: 1073741824, snapshotHandle: 'snap-{id}', creationTime: 1767225600000000000 } },
};

export const VSCLASS: Kind = {
  resource: 'VolumeSnapshotClass',
  collection: `/apis/${GV}/volumesnapshotclasses`,
  sample: (name) => ({
    apiVersion: GV, kind: 'VolumeSnapshotClass', metadata: { name, labels }, driver: 'hostpath.csi.k8s.io', deletionPolicy: 'Delete',
    parameters: { tier: 'fast' },
  }),
  edit: { metadata: { labels: { tier: 'gold' } }, deletionPolicy: 'Retain' },
  jsonEdit: [{ op: 'replace', path: '/deletionPolicy', value: 'Retain' }],
};

const KINDS = [VS, VSC, VSCLASS];
const TAGS = new Map<Kind, string>([[VS, 'vs'], [VSC, 'vsc'], [VSCLASS, 'vsclass']]);
const tagOf = (k: Kind): string => TAGS.get(k)!;
const nameOf = (k: Kind): string => `${tagOf(k)}-{id}`;
const itemOf = (k: Kind, name = nameOf(k)): string => `${k.collection}/${name}`;
const make = (k: Kind, name = nameOf(k), extra: Partial<HttpStep> = {}): HttpStep =>
  post(k.collection, k.sample(name), { save: { obj: '.', rv: 'metadata.resourceVersion', uid: 'metadata.uid' }, ...extra });

function vsWith(spec: Record<string, unknown>, name = 'vs-{id}'): Record<string, unknown> {
  return { apiVersion: GV, kind: 'VolumeSnapshot', metadata: { name, labels }, spec };
}

function vscWith(spec: Record<string, unknown>): Record<string, unknown> {
  const sample = VSC.sample('vsc-{id}');
  return { ...sample, spec: { ...(sample.spec as Record<string, unknown>), ...spec } };
}

function crud(): Case[] {
  return KINDS.flatMap((k) => {
    const t = tagOf(k);
    const more = { resource: k.resource };
    return [
      defineCase(`${t}-create`, 'create/get/list/update', `create a ${k.resource}`, make(k), more),
      defineCase(`${t}-get`, 'create/get/list/update', `get a ${k.resource}`, get(itemOf(k)), { ...more, setup: [make(k)] }),
      defineCase(`${t}-list`, 'create/get/list/update', `list ${k.resource}s by label`, get(withQuery(k.collection, OWN)), { ...more, setup: [make(k)] }),
      defineCase(`${t}-put`, 'create/get/list/update', `update a ${k.resource} (read, modify, write)`, put(itemOf(k), undefined, { edit: { of: 'obj', merge: k.edit } }), { ...more, setup: [make(k)] }),
      defineCase(`${t}-put-stale`, 'create/get/list/update', `update a ${k.resource} from a stale copy`, put(itemOf(k), undefined, { edit: { of: 'obj', merge: k.edit } }), {
        ...more, setup: [make(k), patch(itemOf(k), MERGE, { metadata: { annotations: { first: 'write' } } })],
      }),
      defineCase(`${t}-merge-patch`, 'patch', `merge patch of a ${k.resource}`, patch(itemOf(k), MERGE, k.edit), { ...more, setup: [make(k)] }),
      defineCase(`${t}-json-patch`, 'patch', `JSON patch of a ${k.resource}`, patch(itemOf(k), JSON_PATCH, k.jsonEdit), { ...more, setup: [make(k)] }),
      defineCase(`${t}-strategic-refused`, 'patch', `a strategic merge patch of a ${k.resource} is refused`, patch(itemOf(k), STRATEGIC, k.edit), { ...more, setup: [make(k)] }),
      defineCase(`${t}-delete`, 'delete/finalizers', `delete a ${k.resource}`, del(itemOf(k)), { ...more, setup: [make(k)] }),
      defineCase(`${t}-get-missing`, 'errors', `a ${k.resource} that does not exist`, get(itemOf(k, 'missing-{id}')), more),
      defineCase(`${t}-table-list`, 'table', `${k.resource}s as a Table`, get(withQuery(k.collection, OWN), { accept: TABLE }), { ...more, setup: [make(k)] }),
      defineCase(`${t}-protobuf-only`, 'protobuf', `a ${k.resource} asked for in protobuf only`, get(itemOf(k), { accept: 'application/vnd.kubernetes.protobuf' }), { ...more, setup: [make(k)] }),
      defineCase(`${t}-protobuf-or-json`, 'protobuf', `a ${k.resource} asked for in protobuf or JSON`, get(itemOf(k), { accept: 'application/vnd.kubernetes.protobuf,application/json' }), { ...more, setup: [make(k)] }),
    ];
  });
}

const applyYaml = (className: string): string =>
  `apiVersion: ${GV}\nkind: VolumeSnapshot\nmetadata:\n  name: vs-{id}\n  labels:\n    case: "{id}"\nspec:\n  volumeSnapshotClassName: ${className}\n  source:\n    persistentVolumeClaimName: data\n`;

const apply = (className: string, manager = 'fidelity'): HttpStep =>
  http('PATCH', withQuery(itemOf(VS), `fieldManager=${manager}`), applyYaml(className), { contentType: APPLY });

const applyCases: Case[] = [
  defineCase('vs-apply-create', 'patch', 'server-side apply creates a VolumeSnapshot', apply('csi-fidelity'), { resource: VS.resource }),
  defineCase('vs-apply-change', 'patch', 'server-side apply changes a field the manager owns', apply('other'), { resource: VS.resource, setup: [apply('csi-fidelity')] }),
  defineCase('vs-apply-conflict', 'patch', 'server-side apply by another manager conflicts', apply('other', 'second'), { resource: VS.resource, setup: [apply('csi-fidelity')] }),
  defineCase('vsc-apply-atomic-ref', 'patch', 'an atomic volumeSnapshotRef is owned whole', http('PATCH', withQuery(itemOf(VSC), 'fieldManager=second&force=true'),
    JSON.stringify({ apiVersion: GV, kind: 'VolumeSnapshotContent', metadata: { name: 'vsc-{id}' }, spec: { volumeSnapshotRef: { name: 'other', namespace: 'default' } } }),
    { contentType: APPLY }), { resource: VSC.resource, setup: [make(VSC)] }),
];

const statusCases: Case[] = [
  ...[VS, VSC].flatMap((k) => {
    const t = tagOf(k);
    const status = `${itemOf(k)}/status`;
    const more = { resource: k.resource, setup: [make(k)] };
    return [
      defineCase(`${t}-status-get`, 'status', `get the status of a ${k.resource}`, get(status), more),
      defineCase(`${t}-status-put`, 'status', `update the status of a ${k.resource}`, put(status, undefined, { edit: { of: 'obj', merge: k.status! } }), more),
      defineCase(`${t}-status-merge-patch`, 'status', `merge patch of the status of a ${k.resource}`, patch(status, MERGE, k.status), more),
      defineCase(`${t}-status-ignores-rest`, 'status', `a /status write leaves spec and labels of a ${k.resource} alone`,
        patch(status, MERGE, { ...k.status, metadata: { labels: { via: 'status' } }, spec: { driver: 'changed', volumeSnapshotClassName: 'changed' } }), more),
      defineCase(`${t}-main-ignores-status`, 'status', `a write of a ${k.resource} leaves its status alone`, patch(itemOf(k), MERGE, k.status), more),
    ];
  }),
  defineCase('vsclass-status-missing', 'status', 'a VolumeSnapshotClass has no /status', get(`${itemOf(VSCLASS)}/status`), { resource: VSCLASS.resource, setup: [make(VSCLASS)] }),
  defineCase('vsc-status-negative-size', 'validation (422)', 'a negative restoreSize in the status of a VolumeSnapshotContent', patch(`${itemOf(VSC)}/status`, MERGE, { status: { restoreSize: -1 } }), {
    resource: VSC.resource, setup: [make(VSC)],
  }),
  defineCase('vs-status-bad-time', 'validation (422)', 'a creationTime that is no date-time in the status of a VolumeSnapshot', patch(`${itemOf(VS)}/status`, MERGE, { status: { creationTime: 'yesterday' } }), {
    resource: VS.resource, setup: [make(VS)],
  }),
  defineCase('vs-status-bad-quantity', 'validation (422)', 'a restoreSize that is no quantity in the status of a VolumeSnapshot', patch(`${itemOf(VS)}/status`, MERGE, { status: { restoreSize: 'lots' } }), {
    resource: VS.resource, setup: [make(VS)],
  }),
  defineCase('vsc-generation-spec', 'status', 'a spec change of a VolumeSnapshotContent bumps its generation', patch(itemOf(VSC), MERGE, { spec: { deletionPolicy: 'Retain' } }), {
    resource: VSC.resource, setup: [make(VSC)],
  }),
  defineCase('vsclass-generation-labels', 'status', 'a label change of a VolumeSnapshotClass leaves its generation', patch(itemOf(VSCLASS), MERGE, { metadata: { labels: { tier: 'gold' } } }), {
    resource: VSCLASS.resource, setup: [make(VSCLASS)],
  }),
];

const validationCases: Case[] = [
  defineCase('vs-cel-both-sources', 'validation (422)', 'a VolumeSnapshot naming a claim and a content', post(VS.collection, vsWith({ source: { persistentVolumeClaimName: 'a', volumeSnapshotContentName: 'b' } })), { resource: VS.resource }),
  defineCase('vs-cel-no-source', 'validation (422)', 'a VolumeSnapshot with an empty source', post(VS.collection, vsWith({ source: {} })), { resource: VS.resource }),
  defineCase('vs-cel-empty-class', 'validation (422)', 'a VolumeSnapshot with an empty class name', post(VS.collection, vsWith({ volumeSnapshotClassName: '', source: { persistentVolumeClaimName: 'a' } })), { resource: VS.resource }),
  defineCase('vs-cel-source-immutable', 'validation (422)', 'changing the source claim of a VolumeSnapshot', patch(itemOf(VS), MERGE, { spec: { source: { persistentVolumeClaimName: 'other' } } }), {
    resource: VS.resource, setup: [make(VS)],
  }),
  defineCase('vs-cel-source-switched', 'validation (422)', 'switching a VolumeSnapshot from a claim to a content', patch(itemOf(VS), MERGE, { spec: { source: { persistentVolumeClaimName: null, volumeSnapshotContentName: 'c' } } }), {
    resource: VS.resource, setup: [make(VS)],
  }),
  defineCase('vs-missing-spec', 'validation (422)', 'a VolumeSnapshot without spec', post(VS.collection, { apiVersion: GV, kind: 'VolumeSnapshot', metadata: { name: 'vs-{id}' } }), { resource: VS.resource }),
  defineCase('vs-wrong-type', 'validation (422)', 'a VolumeSnapshot whose claim name is a number', post(VS.collection, vsWith({ source: { persistentVolumeClaimName: 5 } })), { resource: VS.resource }),
  defineCase('vs-bad-name', 'validation (422)', 'a VolumeSnapshot with an invalid name', post(VS.collection, vsWith({ source: { persistentVolumeClaimName: 'a' } }, 'Bad_Name')), { resource: VS.resource }),
  defineCase('vsc-missing-fields', 'validation (422)', 'a VolumeSnapshotContent without driver, policy and ref', post(VSC.collection, {
    apiVersion: GV, kind: 'VolumeSnapshotContent', metadata: { name: 'vsc-{id}' }, spec: { source: { volumeHandle: 'v' } },
  }), { resource: VSC.resource }),
  defineCase('vsc-ref-no-namespace', 'validation (422)', 'a VolumeSnapshotContent whose snapshot ref has no namespace (a rule on __namespace__)', post(VSC.collection, vscWith({ volumeSnapshotRef: { name: 'snap' } })), { resource: VSC.resource }),
  defineCase('vsc-two-handles', 'validation (422)', 'a VolumeSnapshotContent with a volume and a snapshot handle', post(VSC.collection, vscWith({ source: { volumeHandle: 'v', snapshotHandle: 's' } })), { resource: VSC.resource }),
  defineCase('vsc-bad-policy', 'validation (422)', 'a VolumeSnapshotContent with an unknown deletionPolicy', post(VSC.collection, vscWith({ deletionPolicy: 'Keep' })), { resource: VSC.resource }),
  defineCase('vsc-handle-immutable', 'validation (422)', 'changing the volume handle of a VolumeSnapshotContent', patch(itemOf(VSC), MERGE, { spec: { source: { volumeHandle: 'other' } } }), {
    resource: VSC.resource, setup: [make(VSC)],
  }),
  defineCase('vsc-type-blocks-rules', 'validation (422)', 'a type error leaves the CEL rules unchecked', post(VSC.collection, vscWith({ deletionPolicy: 5, source: { volumeHandle: 'v', snapshotHandle: 's' } })), { resource: VSC.resource }),
  defineCase('vsclass-missing-driver', 'validation (422)', 'a VolumeSnapshotClass without a driver', post(VSCLASS.collection, { apiVersion: GV, kind: 'VolumeSnapshotClass', metadata: { name: 'vsclass-{id}' }, deletionPolicy: 'Delete' }), { resource: VSCLASS.resource }),
  defineCase('vsclass-parameters-not-strings', 'validation (422)', 'a VolumeSnapshotClass whose parameter is a number', post(VSCLASS.collection, { ...VSCLASS.sample('vsclass-{id}'), parameters: { size: 5 } }), { resource: VSCLASS.resource }),
  defineCase('vs-wrong-kind', 'errors', 'a body naming another kind posted to volumesnapshots', post(VS.collection, { ...VS.sample('vs-{id}'), kind: 'VolumeSnapshotClass' }), { resource: VS.resource }),
  defineCase('vs-wrong-version', 'errors', 'a body naming another version posted to volumesnapshots', post(VS.collection, { ...VS.sample('vs-{id}'), apiVersion: 'snapshot.storage.k8s.io/v1beta1' }), { resource: VS.resource }),
];

const unknownBody = { ...VS.sample('vs-{id}'), spec: { source: { persistentVolumeClaimName: 'data', bogus: true }, extra: 1 }, top: 'x' };
const fieldValidationCases: Case[] = [
  defineCase('vs-unknown-warn', 'fieldValidation', 'unknown fields of a VolumeSnapshot are pruned with warnings', post(VS.collection, unknownBody), { resource: VS.resource }),
  defineCase('vs-unknown-strict', 'fieldValidation', 'unknown fields of a VolumeSnapshot under Strict', post(withQuery(VS.collection, 'fieldValidation=Strict'), unknownBody), { resource: VS.resource }),
  defineCase('vs-unknown-ignore', 'fieldValidation', 'unknown fields of a VolumeSnapshot under Ignore', post(withQuery(VS.collection, 'fieldValidation=Ignore'), unknownBody), { resource: VS.resource }),
  defineCase('vs-unknown-metadata', 'fieldValidation', 'an unknown metadata field of a VolumeSnapshot', post(VS.collection, { ...VS.sample('vs-{id}'), metadata: { name: 'vs-{id}', bogus: 1 } }), { resource: VS.resource }),
  defineCase('vs-duplicate-field', 'fieldValidation', 'a duplicate field in a VolumeSnapshot under Strict', post(withQuery(VS.collection, 'fieldValidation=Strict'),
    `{"apiVersion":"${GV}","kind":"VolumeSnapshot","metadata":{"name":"vs-{id}"},"spec":{"source":{"persistentVolumeClaimName":"a"},"volumeSnapshotClassName":"x","volumeSnapshotClassName":"y"}}`,
    { contentType: 'application/json' }), { resource: VS.resource }),
  defineCase('vs-unknown-patch', 'fieldValidation', 'a merge patch adding an unknown field to a VolumeSnapshot', patch(itemOf(VS), MERGE, { spec: { bogus: 1 } }), { resource: VS.resource, setup: [make(VS)] }),
];

const otherCases: Case[] = [
  defineCase('vs-field-selector-name', 'selectors', 'VolumeSnapshots by metadata.name', get(withQuery(VS.collection, 'fieldSelector=metadata.name%3Dvs-{id}')), { resource: VS.resource, setup: [make(VS)] }),
  defineCase('vs-field-selector-unknown', 'selectors', 'a field selector on a spec field of a VolumeSnapshot', get(withQuery(VS.collection, 'fieldSelector=spec.volumeSnapshotClassName%3Dx')), { resource: VS.resource }),
  defineCase('vs-list-all-namespaces', 'selectors', 'VolumeSnapshots of every namespace by label', get(withQuery(`/apis/${GV}/volumesnapshots`, OWN)), { resource: VS.resource, setup: [make(VS)] }),
  defineCase('vs-watch', 'watch', 'a watch of VolumeSnapshots sees create, update and delete', watch(withQuery(VS.collection, `${OWN}&watch=true`), 3, [
    make(VS), patch(itemOf(VS), MERGE, { metadata: { labels: { tier: 'gold' } } }), del(itemOf(VS)),
  ]), { resource: VS.resource }),
  defineCase('vs-finalizer-holds', 'delete/finalizers', 'a VolumeSnapshot with a finalizer is only marked deleted', del(itemOf(VS)), {
    resource: VS.resource, setup: [make(VS), patch(itemOf(VS), MERGE, { metadata: { finalizers: ['snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection'] } })],
  }),
  defineCase('vs-finalizer-released', 'delete/finalizers', 'removing the last finalizer of a deleted VolumeSnapshot removes it', patch(itemOf(VS), MERGE, { metadata: { finalizers: null } }), {
    resource: VS.resource, setup: [make(VS), patch(itemOf(VS), MERGE, { metadata: { finalizers: ['snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection'] } }), del(itemOf(VS))],
  }),
  defineCase('vs-finalizer-unqualified', 'delete/finalizers', 'a VolumeSnapshot created with an unqualified finalizer is warned about', post(VS.collection, {
    ...VS.sample('vs-{id}'), metadata: { name: 'vs-{id}', finalizers: ['keep'] },
  }), { resource: VS.resource }),
  defineCase('vsc-deletecollection', 'delete/finalizers', 'deleting VolumeSnapshotContents by label', del(withQuery(VSC.collection, OWN)), { resource: VSC.resource, setup: [make(VSC)] }),
  defineCase('vs-delete-dry-run', 'dryRun', 'a dry-run delete of a VolumeSnapshot', del(withQuery(itemOf(VS), 'dryRun=All')), { resource: VS.resource, setup: [make(VS)] }),
  defineCase('vs-create-dry-run', 'dryRun', 'a dry-run create of a VolumeSnapshot', post(withQuery(VS.collection, 'dryRun=All'), VS.sample('vs-{id}')), { resource: VS.resource }),
  defineCase('vs-table-get', 'table', 'one VolumeSnapshot with a status as a Table', get(itemOf(VS), { accept: TABLE }), {
    resource: VS.resource, setup: [make(VS), patch(`${itemOf(VS)}/status`, MERGE, VS.status)],
  }),
  defineCase('vsc-table-status', 'table', 'a VolumeSnapshotContent with a status as a Table', get(itemOf(VSC), { accept: TABLE }), {
    resource: VSC.resource, setup: [make(VSC), patch(`${itemOf(VSC)}/status`, MERGE, VSC.status)],
  }),
  defineCase('discovery-snapshot-group', 'discovery', `/apis/snapshot.storage.k8s.io lists its version`, get('/apis/snapshot.storage.k8s.io')),
  // The resources' order follows the order the CRDs became Established there: compared by name.
  defineCase('discovery-snapshot-resources', 'discovery', `/apis/${GV} lists the snapshot kinds`, get(`/apis/${GV}`), {
    view: { kind: 'resources', names: ['volumesnapshotclasses', 'volumesnapshotcontents', 'volumesnapshotcontents/status', 'volumesnapshots', 'volumesnapshots/status'] },
  }),
];

const kubectl = (args: string[], files?: Record<string, string>): Case['request'] => ({ kind: 'kubectl', args, ...(files ? { files } : {}) });
const vsYaml = applyYaml('csi-fidelity').replace('name: vs-{id}', 'name: vs-{id}\n  namespace: "{ns}"');
const kubectlCases: Case[] = [
  defineCase('kubectl-get-vs', 'kubectl', 'kubectl get vs', kubectl(['get', 'vs', '-n', '{ns}']), { resource: VS.resource, setup: [make(VS)] }),
  defineCase('kubectl-get-vsc-wide', 'kubectl', 'kubectl get vsc -o wide', kubectl(['get', 'vsc', 'vsc-{id}', '-o', 'wide']), { resource: VSC.resource, setup: [make(VSC)] }),
  defineCase('kubectl-get-vsclass', 'kubectl', 'kubectl get volumesnapshotclass', kubectl(['get', 'volumesnapshotclass', 'vsclass-{id}']), { resource: VSCLASS.resource, setup: [make(VSCLASS)] }),
  defineCase('kubectl-apply-vs', 'kubectl', 'kubectl apply -f of a VolumeSnapshot', kubectl(['apply', '-f', '{dir}/vs.yaml'], { 'vs.yaml': vsYaml }), { resource: VS.resource }),
  defineCase('kubectl-apply-vs-server-side', 'kubectl', 'kubectl apply --server-side of a VolumeSnapshot', kubectl(['apply', '--server-side', '-f', '{dir}/vs.yaml'], { 'vs.yaml': vsYaml }), { resource: VS.resource }),
  defineCase('kubectl-explain-vs', 'kubectl', 'kubectl explain volumesnapshot.spec', kubectl(['explain', 'volumesnapshot.spec']), { resource: VS.resource }),
  defineCase('kubectl-delete-vs', 'kubectl', 'kubectl delete vs', kubectl(['delete', 'vs', 'vs-{id}', '-n', '{ns}']), { resource: VS.resource, setup: [make(VS)] }),
];

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const widgets = (name: string, group = 'example.com'): Record<string, unknown> => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name, labels },
  spec: {
    group, scope: 'Namespaced', names: { plural: name.split('.')[0], kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } } } } }],
  },
});
const crdCases: Case[] = [
  defineCase('crd-get-snapshot', 'create/get/list/update', 'the VolumeSnapshot CustomResourceDefinition', get(`${CRDS}/volumesnapshots.snapshot.storage.k8s.io`), {
    resource: 'CustomResourceDefinition',
    view: { kind: 'values', paths: ['spec names', 'spec scope', 'spec group', 'status acceptedNames', 'status storedVersions', 'status conditions 0 type', 'status conditions 1 type'] },
  }),
  defineCase('crd-create', 'create/get/list/update', 'create a CustomResourceDefinition', post(CRDS, widgets('w{id}.example.com')), {
    resource: 'CustomResourceDefinition', view: { kind: 'values', paths: ['spec', 'status', 'metadata generation', 'metadata finalizers'] },
  }),
  defineCase('crd-bad-name', 'validation (422)', 'a CustomResourceDefinition whose name is not plural.group', post(CRDS, { ...widgets('w{id}.example.com'), metadata: { name: 'other.example.com' } }), {
    resource: 'CustomResourceDefinition',
  }),
  defineCase('crd-no-storage', 'validation (422)', 'a CustomResourceDefinition without a storage version', post(CRDS, (() => {
    const crd = widgets('w{id}.example.com');
    ((crd.spec as Record<string, unknown>).versions as Record<string, unknown>[])[0].storage = false;
    return crd;
  })()), { resource: 'CustomResourceDefinition' }),
  defineCase('crd-get-missing', 'errors', 'a CustomResourceDefinition that does not exist', get(`${CRDS}/nothing.example.com`), { resource: 'CustomResourceDefinition' }),
  defineCase('kubectl-get-crd', 'kubectl', 'kubectl get crd', kubectl(['get', 'crd', 'volumesnapshotcontents.snapshot.storage.k8s.io']), { resource: 'CustomResourceDefinition' }),
];

export const snapshotCases: Case[] = [...crdCases, ...crud(), ...applyCases, ...statusCases, ...validationCases, ...fieldValidationCases, ...otherCases, ...kubectlCases];
