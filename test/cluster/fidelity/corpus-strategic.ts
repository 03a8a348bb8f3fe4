/**
 * Strategic merge patches of every served kind, each on the lists it merges by key: workload
 * template containers (by name, their env by name), Service ports (by port), Node and Pod status
 * conditions and addresses (by type), and on every kind metadata.ownerReferences (by uid) and
 * finalizers (a set). Each patch both changes an element the server has and adds one, so the
 * order kube-apiserver gives the merged list is compared too.
 */
import type { Case } from './case.js';
import { DEPLOYMENT, EVENT, EVENT_V1, LEASE, MERGE, NAMESPACE, NODE, POD, PV, PVC, SC, STRATEGIC, VAC, create, defineCase, item, patch, type Kind } from './fixtures.js';
import { CSI_DRIVER, CSI_STORAGE_CAPACITY, DAEMONSET, REPLICASET, REPLICATION_CONTROLLER, SERVICE, TEMPLATE } from './fixtures-kinds.js';

const AREA = 'strategic';

const owner = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: `uid-${name}`, ...more });

/** A kind's object with two owners, then a strategic patch that changes one and adds a third. */
function ownersCase(k: Kind, tag: string): Case {
  const path = item(k, `smp-${tag}-{id}`);
  return defineCase(`${tag}-strategic-owner-references`, AREA, `a strategic patch merges the ownerReferences of ${k.resource} by uid`,
    patch(path, STRATEGIC, { metadata: { ownerReferences: [owner('c'), owner('b', { controller: true })] } }), {
      resource: k.resource,
      setup: [create(k, `smp-${tag}-{id}`), patch(path, MERGE, { metadata: { ownerReferences: [owner('a'), owner('b')] } })],
    });
}

/** A workload's template containers: the image of `app` changes and it gains an env var; the sidecar, ports and env stay. */
function templateCase(k: Kind, tag: string): Case {
  const path = item(k, `smp-${tag}-{id}`);
  const body = { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.example/app:2', env: [{ name: 'DEBUG', value: '1' }] }] } } } };
  return defineCase(`${tag}-strategic-template-containers`, AREA, `a strategic patch merges ${k.resource} template containers by name`, patch(path, STRATEGIC, body), {
    resource: k.resource,
    setup: [create(k, `smp-${tag}-{id}`)],
  });
}

const DEPLOY_WITH_SIDECAR: Kind = {
  ...DEPLOYMENT,
  sample: (name) => {
    const base = DEPLOYMENT.sample(name);
    return { ...base, spec: { ...(base.spec as Record<string, unknown>), template: TEMPLATE } };
  },
};

const nodePath = item(NODE, 'smp-node-{id}');
const podPath = item(POD, 'smp-pod-{id}');
const servicePath = item(SERVICE, 'smp-svc-{id}');
const pvPath = item(PV, 'smp-pv-{id}');
const pvcPath = item(PVC, 'smp-pvc-{id}');
const condition = (type: string, status: string): Record<string, unknown> => ({ type, status, lastTransitionTime: '2026-01-01T00:00:00Z' });

const byKind: Case[] = [
  templateCase(DEPLOY_WITH_SIDECAR, 'deploy'),
  templateCase(DAEMONSET, 'ds'),
  templateCase(REPLICASET, 'rs'),
  templateCase(REPLICATION_CONTROLLER, 'rc'),
  defineCase('svc-strategic-ports', AREA, 'a strategic patch merges Service ports by port', patch(servicePath, STRATEGIC, {
    spec: { ports: [{ name: 'metrics', port: 9090 }, { port: 80, targetPort: 9080 }] },
  }), { resource: SERVICE.resource, setup: [create(SERVICE, 'smp-svc-{id}')] }),
  defineCase('node-strategic-status-lists', AREA, 'a strategic status patch merges Node conditions and addresses by type', patch(`${nodePath}/status`, STRATEGIC, {
    status: { conditions: [condition('MemoryPressure', 'False'), condition('Ready', 'False')], addresses: [{ type: 'InternalIP', address: '10.1.0.2' }] },
  }), {
    resource: NODE.resource,
    setup: [create(NODE, 'smp-node-{id}'), patch(`${nodePath}/status`, MERGE, {
      status: { conditions: [condition('Ready', 'True'), condition('DiskPressure', 'False')], addresses: [{ type: 'Hostname', address: 'smp-node' }, { type: 'InternalIP', address: '10.1.0.1' }] },
    })],
  }),
  defineCase('pod-strategic-status-conditions', AREA, 'a strategic status patch merges Pod conditions by type', patch(`${podPath}/status`, STRATEGIC, {
    status: { conditions: [condition('PodScheduled', 'True'), condition('Ready', 'False')] },
  }), {
    resource: POD.resource,
    setup: [create(POD, 'smp-pod-{id}'), patch(`${podPath}/status`, MERGE, { status: { conditions: [condition('Ready', 'True'), condition('Initialized', 'True')] } })],
  }),
  defineCase('pv-strategic-finalizers', AREA, 'a strategic patch merges a PersistentVolume\'s finalizers as a set', patch(pvPath, STRATEGIC, {
    metadata: { finalizers: ['example.com/first', 'kubernetes.io/pv-protection'] },
  }), { resource: PV.resource, setup: [create(PV, 'smp-pv-{id}')] }),
  defineCase('pvc-strategic-status-conditions', AREA, 'a strategic status patch merges claim conditions by type', patch(`${pvcPath}/status`, STRATEGIC, {
    status: { conditions: [condition('FileSystemResizePending', 'True'), condition('Resizing', 'False')] },
  }), {
    resource: PVC.resource,
    setup: [create(PVC, 'smp-pvc-{id}'), patch(`${pvcPath}/status`, MERGE, { status: { phase: 'Bound', conditions: [condition('Resizing', 'True')] } })],
  }),
];

const owners: Case[] = [
  ownersCase(PV, 'pv'), ownersCase(PVC, 'pvc'), ownersCase(SC, 'sc'), ownersCase(NAMESPACE, 'ns'), ownersCase(EVENT, 'event'),
  ownersCase(EVENT_V1, 'eventv1'), ownersCase(LEASE, 'lease'), ownersCase(NODE, 'node'), ownersCase(POD, 'pod'), ownersCase(VAC, 'vac'),
  ownersCase(CSI_DRIVER, 'csidriver'), ownersCase(CSI_STORAGE_CAPACITY, 'csisc'), ownersCase(SERVICE, 'svc'), ownersCase(DEPLOYMENT, 'deploy'),
  ownersCase(DAEMONSET, 'ds'), ownersCase(REPLICASET, 'rs'), ownersCase(REPLICATION_CONTROLLER, 'rc'),
];

export const strategicCases: Case[] = [...byKind, ...owners];
