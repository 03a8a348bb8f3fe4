/** A fake cluster with one node, a node-local PV pinned to it and its bound claim, and the node-gone module over it. */
import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_PROVISIONED_BY,
  ANN_SELECTED_NODE,
  FINALIZER_PV_CONTROLLER,
  FINALIZER_PV_PROTECTION,
  FINALIZER_PVC_PROTECTION,
  LABEL_HOSTNAME,
} from '@pv-controller/kube/annotations.js';
import { nodeGoneModule } from '../../../src/controller/node-gone/module.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { SyncResult } from '../../../src/controller/runtime/sync-result.js';
import type { Lease, PersistentVolume, PersistentVolumeClaim, Pod } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/host-path-plugin.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { fakeChanges, testModuleEnv } from '../../helpers/module-env.js';

export const DELAY_MS = 5 * 60_000;
export const NODE = 'node-a';
export const PV = 'pvc-1111';
export const CLAIM = 'ns/data';

export function localVolume(policy: 'Delete' | 'Retain', claim?: PersistentVolumeClaim): PersistentVolume {
  return {
    metadata: { name: PV, annotations: { [ANN_PROVISIONED_BY]: NODE_HOST_PATH_PROVISIONER }, finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: policy,
      storageClassName: 'local',
      local: { path: `/var/lib/pv/${PV}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [NODE] }] }] } },
      ...(claim ? { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'data', uid: claim.metadata.uid } } : {}),
    },
    status: { phase: claim ? 'Bound' : 'Available' },
  };
}

export function boundClaim(): PersistentVolumeClaim {
  return {
    metadata: {
      namespace: 'ns',
      name: 'data',
      uid: 'claim-uid-1',
      labels: { app: 'db' },
      annotations: { team: 'storage', [ANN_BIND_COMPLETED]: 'yes', [ANN_BOUND_BY_CONTROLLER]: 'yes', [ANN_SELECTED_NODE]: NODE },
      finalizers: [FINALIZER_PVC_PROTECTION],
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local', volumeName: PV },
    status: { phase: 'Bound' },
  };
}

export function podUsing(claim: string, name = 'db-0'): Pod {
  return {
    metadata: { namespace: 'ns', name, uid: `${name}-uid` },
    spec: { nodeName: NODE, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
    status: { phase: 'Running' },
  };
}

export interface NodeGoneRig {
  fake: FakeCluster;
  sync(): Promise<SyncResult>;
  /** A new module instance over the same cluster: what a restarted controller would run. */
  restart(): void;
}

/** The cluster holds the node and, per `policy`, a PV bound to its claim (or unbound with `bound: false`). */
export function nodeGoneRig(policy: 'Delete' | 'Retain' = 'Delete', o: { bound?: boolean; node?: boolean } = {}): NodeGoneRig {
  const fake = new FakeCluster();
  const options = { ...parseControllerOptions({}), nodeGoneDelayMs: DELAY_MS };
  const create = () => nodeGoneModule().create(fake.ctx, testModuleEnv(options, { changes: fakeChanges(fake) }));
  let instance = create();
  if (o.node !== false) fake.addNode(NODE);
  const claim = o.bound === false ? undefined : fake.addClaim(boundClaim());
  fake.addVolume(localVolume(policy, claim));
  return {
    fake,
    sync: () => {
      const pv = fake.ctx.volumes.get(PV);
      return pv ? instance.syncVolume!(pv) : Promise.resolve({ kind: 'done' });
    },
    restart: () => {
      instance = create();
    },
  };
}

/** The claim's pvc-protection finalizer taken off, as the protection controller does once no pod uses it. */
export async function finishClaimDeletion(fake: FakeCluster): Promise<void> {
  const claim = fake.claim(CLAIM);
  if (!claim?.metadata.deletionTimestamp) return;
  const next = structuredClone(claim);
  delete next.metadata.finalizers;
  await fake.ctx.api.updateClaim(next);
}

/** Where the default options keep node-gone's records: the leader lease's namespace and name. */
export const RECORD_NAMESPACE = 'kube-system';
export const RECORD = `${RECORD_NAMESPACE}/pv-controller-node-gone-${PV}`;

/** The record Lease of the rig's PV, as the server holds it. */
export function recordOf(fake: FakeCluster): Lease | undefined {
  return fake.serverCopy<Lease>('Lease', RECORD);
}
