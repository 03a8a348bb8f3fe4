/**
 * Secrets and CSINodes beyond the per-kind cases: ValidateSecret's rules per type, base64 and
 * size, stringData, immutability, the `type` field label, and ValidateCSINode's driver rules and
 * what an update may change.
 */
import type { Case, KubectlStep } from './case.js';
import { APPLY, CSINODE, MERGE, OWN, SECRET, TABLE, create, defineCase, get, item, patch, post, withQuery } from './fixtures.js';

const INVALID = 'validation (422)';
const CRUD = 'create/get/list/update';
const SELECTORS = 'selectors';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function secret(name: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, labels: { case: '{id}' } }, ...extra };
}

const secretInvalid = (id: string, title: string, extra: Record<string, unknown>): Case =>
  defineCase(id, INVALID, title, post(SECRET.collection, secret('s', extra)), { resource: SECRET.resource });

const pem = (type: string): string => `-----BEGIN ${type}-----\nAAAA\n-----END ${type}-----\n`;
const tls = (crt: string, key: string): Record<string, unknown> => ({ type: 'kubernetes.io/tls', stringData: { 'tls.crt': crt, 'tls.key': key } });

const secretCases: Case[] = [
  defineCase('secret-tls-warning-no-pem', CRUD, 'a TLS Secret without PEM data is accepted with a warning', post(SECRET.collection, secret('s', tls('', ''))), { resource: SECRET.resource }),
  defineCase('secret-tls-warning-switched', CRUD, 'a TLS Secret with key and certificate switched', post(SECRET.collection, secret('s', tls(pem('RSA PRIVATE KEY'), pem('CERTIFICATE')))), {
    resource: SECRET.resource,
  }),
  defineCase('secret-tls-warning-no-key', CRUD, 'a TLS Secret whose key input holds other PEM blocks', post(SECRET.collection, secret('s', tls(pem('CERTIFICATE'), pem('PUBLIC KEY') + pem('X')))), {
    resource: SECRET.resource,
  }),
  defineCase('secret-string-data-merged', CRUD, 'stringData overwrites data and is not returned', post(SECRET.collection, secret('s', { data: { a: b64('old') }, stringData: { a: 'new', b: 'x' } })), {
    resource: SECRET.resource,
  }),
  defineCase('secret-apply-string-data', 'patch', 'server-side apply of a Secret with stringData', patch(withQuery(item(SECRET, 's'), 'fieldManager=ssa'), APPLY, secret('s', { stringData: { a: 'x' } })), {
    resource: SECRET.resource,
  }),
  defineCase('secret-apply-string-data-again', 'patch', 'server-side apply of a Secret changing stringData', patch(withQuery(item(SECRET, 's'), 'fieldManager=ssa'), APPLY, secret('s', { stringData: { a: 'y', b: 'z' } })), {
    resource: SECRET.resource,
    setup: [patch(withQuery(item(SECRET, 's'), 'fieldManager=ssa'), APPLY, secret('s', { stringData: { a: 'x' } }))],
  }),
  defineCase('secret-empty-data', CRUD, 'a Secret with an empty data map', post(SECRET.collection, secret('s', { data: {} })), { resource: SECRET.resource }),
  defineCase('secret-base64-line-breaks', CRUD, 'base64 data with line breaks', post(SECRET.collection, secret('s', { data: { a: 'YWJj\nZGVm' } })), { resource: SECRET.resource }),
  defineCase('secret-bad-base64', 'fieldValidation', 'data that is not base64', post(SECRET.collection, secret('s', { data: { a: 'YWJj*' } })), { resource: SECRET.resource }),
  defineCase('secret-data-number', 'fieldValidation', 'a data value that is a number', post(SECRET.collection, secret('s', { data: { a: 1 } })), { resource: SECRET.resource }),
  // One bad key per case: kube-apiserver validates data in Go map order, so two bad keys come back in either order.
  secretInvalid('secret-invalid-key', 'a data key that is no config key', { data: { 'a b': b64('x') } }),
  secretInvalid('secret-invalid-key-dots', 'a data key starting with ..', { data: { '..a': b64('y') } }),
  secretInvalid('secret-too-big', 'data over 1 MiB', { data: { a: Buffer.alloc(1024 * 1024 + 1, 1).toString('base64') } }),
  secretInvalid('secret-tls-missing-keys', 'a TLS Secret without its keys', { type: 'kubernetes.io/tls', data: {} }),
  secretInvalid('secret-basic-auth-missing', 'a basic-auth Secret without username and password', { type: 'kubernetes.io/basic-auth' }),
  secretInvalid('secret-ssh-auth-empty', 'an ssh-auth Secret with an empty key', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }),
  secretInvalid('secret-sa-token-no-annotation', 'a service-account token without its annotation', { type: 'kubernetes.io/service-account-token' }),
  secretInvalid('secret-dockerconfigjson-bad', 'a docker config that is not JSON', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":' } }),
  secretInvalid('secret-dockercfg-array', 'a docker config that is a JSON array', { type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '[1]' } }),
  defineCase('secret-type-immutable', INVALID, 'changing the type of a Secret', patch(item(SECRET, 'secret-{id}'), MERGE, { type: 'example.com/other' }), {
    resource: SECRET.resource,
    setup: [create(SECRET, 'secret-{id}')],
  }),
  defineCase('secret-immutable-data', INVALID, 'changing data and immutable of an immutable Secret', patch(item(SECRET, 's'), MERGE, { immutable: false, stringData: { a: 'other' } }), {
    resource: SECRET.resource,
    setup: [post(SECRET.collection, secret('s', { immutable: true, data: { a: b64('x') } }))],
  }),
  defineCase('secret-immutable-labels', CRUD, 'relabelling an immutable Secret', patch(item(SECRET, 's'), MERGE, { metadata: { labels: { tier: 'gold' } } }), {
    resource: SECRET.resource,
    setup: [post(SECRET.collection, secret('s', { immutable: true, data: { a: b64('x') } }))],
  }),
  defineCase('secret-field-selector-type', SELECTORS, 'Secrets selected by type', get(withQuery(SECRET.collection, `${OWN}&fieldSelector=type%3Dkubernetes.io%2Ftls`)), {
    resource: SECRET.resource,
    setup: [post(SECRET.collection, secret('cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } })), create(SECRET, 'plain')],
  }),
  defineCase('secret-field-selector-unknown', SELECTORS, 'a Secret field the field-label conversion refuses', get(withQuery(SECRET.collection, 'fieldSelector=immutable%3Dtrue')), {
    resource: SECRET.resource,
  }),
  defineCase('secret-table-types', 'table', 'Secrets of two types as a Table', get(withQuery(SECRET.collection, OWN), { accept: TABLE }), {
    resource: SECRET.resource,
    setup: [post(SECRET.collection, secret('cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } })), create(SECRET, 'plain')],
  }),
];

type Driver = Record<string, unknown>;
const driver: Driver = { name: 'hostpath.csi.k8s.io', nodeID: 'node-a', topologyKeys: ['topology.hostpath.csi/node'], allocatable: { count: 10 } };

function csiNode(drivers: Driver[]): Record<string, unknown> {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'csinode-{id}', labels: { case: '{id}' } }, spec: { drivers } };
}

const csiNodeInvalid = (id: string, title: string, drivers: Driver[]): Case =>
  defineCase(id, INVALID, title, post(CSINODE.collection, csiNode(drivers)), { resource: CSINODE.resource });

const csiNodeCases: Case[] = [
  defineCase('csinode-apply', 'patch', 'server-side apply of a CSINode', patch(withQuery(item(CSINODE, 'csinode-{id}'), 'fieldManager=ssa'), APPLY, csiNode([driver])), {
    resource: CSINODE.resource,
  }),
  defineCase('csinode-no-drivers', CRUD, 'a CSINode without drivers', post(CSINODE.collection, csiNode([])), { resource: CSINODE.resource }),
  defineCase('csinode-status-dropped', CRUD, 'a CSINode created with a status', post(CSINODE.collection, { ...csiNode([driver]), status: { storageHealth: [{ name: 'x' }] } }), {
    resource: CSINODE.resource,
  }),
  csiNodeInvalid('csinode-duplicate-driver', 'the same driver twice', [driver, driver]),
  csiNodeInvalid('csinode-bad-driver-names', 'driver names that are empty, too long or no DNS subdomain', [
    { ...driver, name: '' }, { ...driver, name: `${'a'.repeat(64)}.io` }, { ...driver, name: 'Not_A_Driver' },
  ]),
  csiNodeInvalid('csinode-node-id', 'a missing and a too long nodeID', [{ ...driver, nodeID: '' }, { ...driver, name: 'b.csi.k8s.io', nodeID: 'n'.repeat(257) }]),
  csiNodeInvalid('csinode-topology-keys', 'topology keys that repeat, are empty or are no qualified names', [{ ...driver, topologyKeys: ['zone', 'zone', '', 'bad key'] }]),
  csiNodeInvalid('csinode-negative-count', 'a negative allocatable count', [{ ...driver, allocatable: { count: -1 } }]),
  defineCase('csinode-node-id-immutable', INVALID, 'changing the nodeID of a registered driver', patch(item(CSINODE, 'csinode-{id}'), MERGE, { spec: { drivers: [{ ...driver, nodeID: 'node-b' }] } }), {
    resource: CSINODE.resource,
    setup: [post(CSINODE.collection, csiNode([driver]))],
  }),
  defineCase('csinode-count-mutable', CRUD, 'changing the allocatable count of a registered driver', patch(item(CSINODE, 'csinode-{id}'), MERGE, { spec: { drivers: [{ ...driver, allocatable: { count: 3 } }] } }), {
    resource: CSINODE.resource,
    setup: [post(CSINODE.collection, csiNode([driver]))],
  }),
  defineCase('csinode-driver-added', CRUD, 'a second driver registered', patch(item(CSINODE, 'csinode-{id}'), 'application/strategic-merge-patch+json', { spec: { drivers: [{ ...driver, name: 'b.csi.k8s.io' }] } }), {
    resource: CSINODE.resource,
    setup: [post(CSINODE.collection, csiNode([driver]))],
  }),
];

const KUBECTL = 'kubectl';
const kubectl = (args: string[]): KubectlStep => ({ kind: 'kubectl', args });
const createGeneric = kubectl(['create', 'secret', 'generic', 's', '--from-literal=k=v', '--from-literal=user=admin', '-n', '{ns}']);

const kubectlCases: Case[] = [
  defineCase('kubectl-create-secret-generic', KUBECTL, 'kubectl create secret generic --from-literal', createGeneric, { resource: SECRET.resource }),
  defineCase('kubectl-get-secret-yaml', KUBECTL, 'kubectl get secret -o yaml', kubectl(['get', 'secret', 's', '-n', '{ns}', '-o', 'yaml']), {
    resource: SECRET.resource,
    setup: [createGeneric],
    view: { kind: 'lines', match: '^(apiVersion|data|kind|type|stringData):|^ (k|user):' },
  }),
  defineCase('kubectl-get-secrets', KUBECTL, 'kubectl get secrets', kubectl(['get', 'secrets', '-n', '{ns}']), { resource: SECRET.resource, setup: [createGeneric] }),
  defineCase('kubectl-describe-secret', KUBECTL, 'kubectl describe secret', kubectl(['describe', 'secret', 's', '-n', '{ns}']), { resource: SECRET.resource, setup: [createGeneric] }),
  defineCase('kubectl-get-csinode', KUBECTL, 'kubectl get csinode', kubectl(['get', 'csinode', 'csinode-{id}']), {
    resource: CSINODE.resource,
    setup: [post(CSINODE.collection, csiNode([driver]))],
  }),
  defineCase('kubectl-explain-csinode-drivers', KUBECTL, 'kubectl explain csinode.spec.drivers', kubectl(['explain', 'csinode.spec.drivers']), {
    resource: CSINODE.resource,
    view: { kind: 'lines', match: '^(KIND|VERSION|GROUP|FIELD|FIELDS|DESCRIPTION):|^ {2}[a-zA-Z]+\\t?<|error' },
  }),
];

export const secretCsiNodeCases: Case[] = [...secretCases, ...csiNodeCases, ...kubectlCases];
