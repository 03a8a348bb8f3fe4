/**
 * The served kinds the rest of the corpus does not replay as a `Kind` (Services, the workloads,
 * CSIDriver, CSIStorageCapacity), for the strategic merge patch cases. Each workload's template
 * has the lists a patch merges by key: containers by name, their ports by containerPort, env by
 * name.
 */
import type { Kind } from './fixtures.js';

const labels = { case: '{id}' };

/** A pod template with two containers, the first with ports and env. */
export const TEMPLATE = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'registry.example/app:1', ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'prod' }] },
      { name: 'sidecar', image: 'registry.example/proxy:1' },
    ],
  },
};

function workload(apiVersion: string, kind: string, plural: string, spec: Record<string, unknown>): Kind {
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return {
    resource: kind,
    collection: `${group}/namespaces/{ns}/${plural}`,
    sample: (name) => ({ apiVersion, kind, metadata: { name, labels }, spec: { ...spec, template: TEMPLATE } }),
    edit: { metadata: { labels: { tier: 'gold' } } },
    jsonEdit: [{ op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
  };
}

const selector = { matchLabels: { app: 'web' } };

export const DAEMONSET = workload('apps/v1', 'DaemonSet', 'daemonsets', { selector });
export const REPLICASET = workload('apps/v1', 'ReplicaSet', 'replicasets', { selector, replicas: 1 });
export const REPLICATION_CONTROLLER = workload('v1', 'ReplicationController', 'replicationcontrollers', { selector: { app: 'web' }, replicas: 1 });

export const SERVICE: Kind = {
  resource: 'Service',
  collection: '/api/v1/namespaces/{ns}/services',
  sample: (name) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }] },
  }),
  edit: { metadata: { labels: { tier: 'gold' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

export const CSI_DRIVER: Kind = {
  resource: 'CSIDriver',
  collection: '/apis/storage.k8s.io/v1/csidrivers',
  sample: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name, labels }, spec: { attachRequired: false } }),
  edit: { metadata: { labels: { tier: 'gold' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};

export const CSI_STORAGE_CAPACITY: Kind = {
  resource: 'CSIStorageCapacity',
  collection: '/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities',
  sample: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name, labels }, storageClassName: 'standard', capacity: '10Gi' }),
  edit: { metadata: { labels: { tier: 'gold' } } },
  jsonEdit: [{ op: 'add', path: '/metadata/labels/tier', value: 'gold' }],
};
