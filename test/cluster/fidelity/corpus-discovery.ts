/**
 * Discovery (/api, /apis, group versions, aggregated discovery) and OpenAPI. kube-apiserver serves
 * far more than we do, so discovery is compared for the resources we serve and OpenAPI by shape:
 * which documents, paths and schemas exist, not their full text.
 */
import type { Case } from './case.js';
import { defineCase, get } from './fixtures.js';

const DISCOVERY = 'discovery';
const OPENAPI = 'openapi';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const PROTO_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function resources(id: string, path: string, names: string[]): Case {
  return defineCase(id, DISCOVERY, `${path} lists ${names.join(', ')}`, get(path), { view: { kind: 'resources', names } });
}

const discovery: Case[] = [
  defineCase('discovery-api', DISCOVERY, '/api', get('/api')),
  defineCase('discovery-apis', DISCOVERY, '/apis lists our groups', get('/apis'), { view: { kind: 'groups', names: ['storage.k8s.io', 'events.k8s.io', 'coordination.k8s.io'] } }),
  resources('discovery-core-pv', '/api/v1', ['persistentvolumes', 'persistentvolumes/status']),
  resources('discovery-core-pvc', '/api/v1', ['persistentvolumeclaims', 'persistentvolumeclaims/status']),
  resources('discovery-core-namespaces', '/api/v1', ['namespaces', 'namespaces/status', 'namespaces/finalize']),
  resources('discovery-core-events', '/api/v1', ['events']),
  resources('discovery-core-nodes', '/api/v1', ['nodes', 'nodes/status']),
  resources('discovery-core-pods', '/api/v1', ['pods', 'pods/status']),
  resources('discovery-storage-v1', '/apis/storage.k8s.io/v1', ['storageclasses']),
  resources('discovery-storage-v1-vac', '/apis/storage.k8s.io/v1', ['volumeattributesclasses']),
  resources('discovery-events-v1', '/apis/events.k8s.io/v1', ['events']),
  resources('discovery-apps-v1', '/apis/apps/v1', ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'replicasets', 'replicasets/status']),
  resources('discovery-core-replicationcontrollers', '/api/v1', ['replicationcontrollers', 'replicationcontrollers/status']),
  resources('discovery-coordination-v1', '/apis/coordination.k8s.io/v1', ['leases']),
  resources('discovery-core-secrets', '/api/v1', ['secrets']),
  resources('discovery-storage-v1-csinodes', '/apis/storage.k8s.io/v1', ['csinodes', 'csinodes/status']),
  defineCase('discovery-group-storage', DISCOVERY, '/apis/storage.k8s.io', get('/apis/storage.k8s.io')),
  defineCase('discovery-group-unknown', DISCOVERY, 'a group nobody serves', get('/apis/example.com')),
  defineCase('discovery-version-unknown', DISCOVERY, 'a version nobody serves', get('/apis/storage.k8s.io/v9')),
  defineCase('discovery-aggregated-api', DISCOVERY, 'aggregated discovery of /api', get('/api', { accept: AGGREGATED }), { view: { kind: 'shape', paths: ['kind', 'apiVersion', 'items'] } }),
  defineCase('discovery-aggregated-apis', DISCOVERY, 'aggregated discovery of /apis', get('/apis', { accept: AGGREGATED }), { view: { kind: 'shape', paths: ['kind', 'apiVersion', 'items'] } }),
  defineCase('discovery-version', DISCOVERY, '/version', get('/version'), { view: { kind: 'shape', paths: ['major', 'minor', 'gitVersion', 'gitCommit', 'buildDate', 'goVersion', 'compiler', 'platform', 'emulationMajor'] } }),
  defineCase('discovery-healthz', DISCOVERY, '/healthz', get('/healthz')),
  defineCase('discovery-readyz', DISCOVERY, '/readyz', get('/readyz')),
];

const V3_GROUPS = ['api/v1', 'apis/storage.k8s.io/v1', 'apis/events.k8s.io/v1', 'apis/coordination.k8s.io/v1'];

function schemaShape(prefix: string, kinds: string[], paths: string[]): string[] {
  return [
    'openapi',
    'info title',
    ...paths.flatMap((p) => [`paths ${p} get`, `paths ${p} patch`]),
    ...kinds.flatMap((k) => [`components schemas ${prefix}.${k} properties`, `components schemas ${prefix}.${k} x-kubernetes-group-version-kind`]),
  ];
}

const PV_PATHS = ['/api/v1/persistentvolumes', '/api/v1/persistentvolumes/{name}', '/api/v1/persistentvolumes/{name}/status', '/api/v1/watch/persistentvolumes/{name}'];
const CORE_SCHEMAS = ['PersistentVolume', 'PersistentVolumeSpec', 'PersistentVolumeClaimSpec', 'ObjectMeta'].map((k) => (k === 'ObjectMeta' ? 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' : `io.k8s.api.core.v1.${k}`));

const openapi: Case[] = [
  defineCase('openapi-v2-json', OPENAPI, '/openapi/v2 as JSON', get('/openapi/v2'), { view: { kind: 'shape', paths: ['swagger', 'info', 'paths', 'definitions'] } }),
  defineCase('openapi-v2-protobuf', OPENAPI, '/openapi/v2 as protobuf (kubectl <1.27)', get('/openapi/v2', { accept: PROTO_V2 }), { view: { kind: 'shape', paths: ['bytes'] } }),
  defineCase('openapi-v3-index', OPENAPI, '/openapi/v3 lists our group versions', get('/openapi/v3'), { view: { kind: 'shape', paths: V3_GROUPS.map((g) => `paths ${g} serverRelativeURL`) } }),
  defineCase('openapi-v3-core', OPENAPI, '/openapi/v3/api/v1 has the core schemas', get('/openapi/v3/api/v1'), {
    view: {
      kind: 'shape',
      paths: schemaShape('io.k8s.api.core.v1', ['PersistentVolume', 'PersistentVolumeClaim', 'Namespace', 'Event', 'Node', 'Pod'], [
        '/api/v1/persistentvolumes/{name}',
        '/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}',
      ]),
    },
  }),
  defineCase('openapi-v3-core-pvc-spec', OPENAPI, 'the PersistentVolumeClaimSpec schema', get('/openapi/v3/api/v1'), {
    view: { kind: 'shape', paths: ['accessModes', 'resources', 'storageClassName', 'volumeMode'].map((f) => `components schemas io.k8s.api.core.v1.PersistentVolumeClaimSpec properties ${f} description`) },
  }),
  defineCase('openapi-v3-storage', OPENAPI, '/openapi/v3/apis/storage.k8s.io/v1', get('/openapi/v3/apis/storage.k8s.io/v1'), {
    view: { kind: 'shape', paths: schemaShape('io.k8s.api.storage.v1', ['StorageClass'], ['/apis/storage.k8s.io/v1/storageclasses/{name}']) },
  }),
  defineCase('openapi-v3-coordination', OPENAPI, '/openapi/v3/apis/coordination.k8s.io/v1', get('/openapi/v3/apis/coordination.k8s.io/v1'), {
    view: { kind: 'shape', paths: schemaShape('io.k8s.api.coordination.v1', ['Lease'], ['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}']) },
  }),
  defineCase('openapi-v3-events', OPENAPI, '/openapi/v3/apis/events.k8s.io/v1', get('/openapi/v3/apis/events.k8s.io/v1'), {
    view: { kind: 'shape', paths: schemaShape('io.k8s.api.events.v1', ['Event'], ['/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}']) },
  }),
  defineCase('openapi-v3-unknown', OPENAPI, 'the OpenAPI document of a group nobody serves', get('/openapi/v3/apis/example.com/v1')),
  defineCase('openapi-v3-core-pv-paths', OPENAPI, 'every PersistentVolume operation of /openapi/v3/api/v1, exactly', get('/openapi/v3/api/v1'), {
    view: { kind: 'values', paths: PV_PATHS.map((p) => `paths ${p}`) },
  }),
  defineCase('openapi-v3-core-pv-schemas', OPENAPI, 'the PersistentVolume and claim schemas, exactly', get('/openapi/v3/api/v1'), {
    view: { kind: 'values', paths: CORE_SCHEMAS.map((k) => `components schemas ${k}`) },
  }),
  defineCase('openapi-v3-storage-exact', OPENAPI, 'StorageClass operations and schema, exactly', get('/openapi/v3/apis/storage.k8s.io/v1'), {
    view: { kind: 'values', paths: ['paths /apis/storage.k8s.io/v1/storageclasses', 'paths /apis/storage.k8s.io/v1/storageclasses/{name}', 'components schemas io.k8s.api.storage.v1.StorageClass'] },
  }),
  defineCase('openapi-v2-pv-exact', OPENAPI, '/openapi/v2: PersistentVolume paths, shared parameters and definition, exactly', get('/openapi/v2'), {
    view: {
      kind: 'values',
      paths: [...PV_PATHS.map((p) => `paths ${p}`), 'parameters fieldManager-Qy4HdaTW', 'parameters body-2Y1dVQaQ', 'parameters pretty-tJGM1-ng', 'definitions io.k8s.api.core.v1.PersistentVolume', 'securityDefinitions', 'security'],
    },
  }),
  defineCase('openapi-v3-group-document', OPENAPI, '/openapi/v3/apis/storage.k8s.io (the group document)', get('/openapi/v3/apis/storage.k8s.io'), {
    view: { kind: 'values', paths: ['paths', 'components'] },
  }),
];

export const discoveryCases: Case[] = [...discovery, ...openapi];
