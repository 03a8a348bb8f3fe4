/**
 * Building blocks of the corpus: request steps, and per resource its paths, a valid object and
 * the edits the update and patch cases apply. Every object carries the label `case={id}`, so list
 * cases select their own objects with `?labelSelector=case={id}`.
 */
import type { Case, HttpMethod, HttpStep, Step, WatchStep } from './case.js';

export const MERGE = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC = 'application/strategic-merge-patch+json';
export const APPLY = 'application/apply-patch+yaml';
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
export const OWN = 'labelSelector=case%3D{id}';

export function http(method: HttpMethod, path: string, body?: unknown, extra: Partial<HttpStep> = {}): HttpStep {
  return { kind: 'http', method, path, ...(body === undefined ? {} : { body }), ...extra };
}

export const get = (path: string, extra: Partial<HttpStep> = {}): HttpStep => http('GET', path, undefined, extra);
export const post = (path: string, body: unknown, extra: Partial<HttpStep> = {}): HttpStep => http('POST', path, body, extra);
export const put = (path: string, body: unknown, extra: Partial<HttpStep> = {}): HttpStep => http('PUT', path, body, extra);
export const del = (path: string, body?: unknown): HttpStep => http('DELETE', path, body);
export const patch = (path: string, contentType: string, body: unknown): HttpStep => http('PATCH', path, body, { contentType });

export function defineCase(id: string, area: string, title: string, request: Step, more: Partial<Case> = {}): Case {
  return { id, area, title, request, ...more };
}

/** Create the object, keeping it (`obj`) and its resourceVersion (`rv`) for later steps. */
export function create(kind: Kind, name: string, extra: Partial<HttpStep> = {}): HttpStep {
  return post(kind.collection, kind.sample(name), { save: { obj: '.', rv: 'metadata.resourceVersion', uid: 'metadata.uid' }, ...extra });
}

export function watch(path: string, events: number, during: HttpStep[] = []): WatchStep {
  return { kind: 'watch', path, events, during };
}

export function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** A resource as the corpus uses it. */
export interface Kind {
  resource: string;
  collection: string;
  /** A valid object named `name`. */
  sample(name: string): Record<string, unknown>;
  /** A merge patch (also sent as a strategic one) that changes something a user would change. */
  edit: Record<string, unknown>;
  /** A JSON patch with the same intent. */
  jsonEdit: unknown[];
  /** A status a `/status` write may set; undefined where the resource has no status subresource. */
  status?: Record<string, unknown>;
}

export function item(kind: Kind, name: string): string {
  return `${kind.collection}/${name}`;
}

const labels = { case: '{id}' };

export const PV: Kind = {
  resource: 'PersistentVolume',
  collection: '/api/v1/persistentvolumes',
  sample: (name) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'manual',
      hostPath: { path: `/tmp/fidelity/${name}` },
    },
  }),
  edit: { metadata: { labels: { tier: 'gold' } }, spec: { persistentVolumeReclaimPolicy: 'Delete' } },
  jsonEdit: [{ op: 'replace', path: '/spec/persistentVolumeReclaimPolicy', value: 'Delete' }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { phase: 'Available' } },
};

export const PVC: Kind = {
  resource: 'PersistentVolumeClaim',
  collection: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
  sample: (name) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, labels },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'manual', resources: { requests: { storage: '1Gi' } } },
  }),
  edit: { metadata: { labels: { tier: 'gold' }, annotations: { note: 'edited' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/annotations', value: { note: 'edited' } }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } },
};

export const SC: Kind = {
  resource: 'StorageClass',
  collection: '/apis/storage.k8s.io/v1/storageclasses',
  sample: (name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, labels },
    provisioner: 'example.com/fidelity',
    parameters: { speed: 'fast' },
  }),
  edit: { metadata: { labels: { tier: 'gold' } }, allowVolumeExpansion: true },
  jsonEdit: [{ op: 'add', path: '/allowVolumeExpansion', value: true }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

export const NAMESPACE: Kind = {
  resource: 'Namespace',
  collection: '/api/v1/namespaces',
  sample: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }),
  edit: { metadata: { labels: { tier: 'gold' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { phase: 'Active' } },
};

export const EVENT: Kind = {
  resource: 'Event',
  collection: '/api/v1/namespaces/{ns}/events',
  sample: (name) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, labels },
    involvedObject: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: '{ns}', name: 'claim' },
    reason: 'ProvisioningSucceeded',
    message: 'volume provisioned',
    type: 'Normal',
    source: { component: 'fidelity' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    count: 1,
  }),
  edit: { count: 2, message: 'volume provisioned again' },
  jsonEdit: [{ op: 'replace', path: '/count', value: 2 }, { op: 'replace', path: '/message', value: 'volume provisioned again' }],
};

export const EVENT_V1: Kind = {
  resource: 'Event (events.k8s.io)',
  collection: '/apis/events.k8s.io/v1/namespaces/{ns}/events',
  sample: (name) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, labels },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'example.com/fidelity',
    reportingInstance: 'fidelity-1',
    action: 'Provisioning',
    reason: 'ProvisioningSucceeded',
    regarding: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: '{ns}', name: 'claim' },
    note: 'volume provisioned',
    type: 'Normal',
  }),
  // events.k8s.io keeps everything but the series (and metadata) immutable.
  edit: { metadata: { labels: { tier: 'gold' } }, series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' } },
  jsonEdit: [{ op: 'add', path: '/series', value: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' } }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

export const LEASE: Kind = {
  resource: 'Lease',
  collection: '/apis/coordination.k8s.io/v1/namespaces/{ns}/leases',
  sample: (name) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, labels },
    spec: { holderIdentity: 'replica-a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' },
  }),
  edit: { spec: { holderIdentity: 'replica-b', leaseTransitions: 1 } },
  jsonEdit: [{ op: 'replace', path: '/spec/holderIdentity', value: 'replica-b' }, { op: 'add', path: '/spec/leaseTransitions', value: 1 }],
};

export const NODE: Kind = {
  resource: 'Node',
  collection: '/api/v1/nodes',
  sample: (name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { ...labels, 'kubernetes.io/hostname': name } } }),
  edit: { metadata: { labels: { tier: 'gold' } }, spec: { unschedulable: true } },
  jsonEdit: [{ op: 'add', path: '/spec/unschedulable', value: true }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }] } },
};

export const POD: Kind = {
  resource: 'Pod',
  collection: '/api/v1/namespaces/{ns}/pods',
  sample: (name) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [{ name: 'app', image: 'registry.example/app:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'claim' } }],
    },
  }),
  edit: { metadata: { labels: { tier: 'gold' }, annotations: { note: 'edited' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/annotations', value: { note: 'edited' } }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
};

export const VAC: Kind = {
  resource: 'VolumeAttributesClass',
  collection: '/apis/storage.k8s.io/v1/volumeattributesclasses',
  sample: (name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttributesClass',
    metadata: { name, labels },
    driverName: 'example.com/fidelity',
    parameters: { iops: '3000' },
  }),
  // Only metadata of a VolumeAttributesClass may change.
  edit: { metadata: { labels: { tier: 'gold' }, annotations: { note: 'edited' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/annotations', value: { note: 'edited' } }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

/** apps/v1 Deployment: served as stored objects (no controller acts on them in either server's corpus run). */
export const DEPLOYMENT: Kind = {
  resource: 'Deployment',
  collection: '/apis/apps/v1/namespaces/{ns}/deployments',
  sample: (name) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
    },
  }),
  edit: { spec: { replicas: 3 } },
  jsonEdit: [{ op: 'add', path: '/spec/replicas', value: 3 }],
  status: { status: { replicas: 1, readyReplicas: 1 } },
};

/** core/v1 Secret: what the CSI client reads for a StorageClass's provisioner secret. */
export const SECRET: Kind = {
  resource: 'Secret',
  collection: '/api/v1/namespaces/{ns}/secrets',
  sample: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, labels }, data: { username: 'YWRtaW4=' }, stringData: { password: 'fidelity' } }),
  edit: { metadata: { labels: { tier: 'gold' } }, stringData: { extra: 'more' } },
  jsonEdit: [{ op: 'add', path: '/data/extra', value: 'bW9yZQ==' }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

/** storage.k8s.io/v1 CSINode: the drivers a node's kubelet registered, with their topology keys. */
export const CSINODE: Kind = {
  resource: 'CSINode',
  collection: '/apis/storage.k8s.io/v1/csinodes',
  sample: (name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name, labels },
    spec: { drivers: [{ name: 'hostpath.csi.k8s.io', nodeID: name, topologyKeys: ['topology.hostpath.csi/node'], allocatable: { count: 10 } }] },
  }),
  // Only a registered driver's allocatable may change.
  edit: { metadata: { labels: { tier: 'gold' } } },
  jsonEdit: [{ op: 'replace', path: '/spec/drivers/0/allocatable/count', value: 5 }, { op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  status: { status: { storageHealth: [{ name: 'hostpath.csi.k8s.io', healthConditions: [] }] } },
};

export const ALL_KINDS = [PV, PVC, SC, NAMESPACE, EVENT, EVENT_V1, LEASE, NODE, POD, VAC, SECRET, CSINODE];

/** "a PersistentVolume", "an Event": the resource with its article, for case titles. */
export function a(kind: Kind): string {
  return `${/^[AEIOU]/.test(kind.resource) ? 'an' : 'a'} ${kind.resource}`;
}

/** The resource's name in the plural, for case titles. */
export function plural(kind: Kind): string {
  const [word, ...rest] = kind.resource.split(' ');
  return [word.endsWith('s') ? `${word}es` : `${word}s`, ...rest].join(' ');
}

/** A short, DNS-safe tag per kind for case ids. */
export function tag(kind: Kind): string {
  const tags: Record<string, string> = {
    PersistentVolume: 'pv',
    PersistentVolumeClaim: 'pvc',
    StorageClass: 'sc',
    Namespace: 'ns',
    Event: 'event',
    'Event (events.k8s.io)': 'eventv1',
    Lease: 'lease',
    Node: 'node',
    Pod: 'pod',
    VolumeAttributesClass: 'vac',
    Deployment: 'deploy',
    Secret: 'secret',
    CSINode: 'csinode',
  };
  return tags[kind.resource];
}
