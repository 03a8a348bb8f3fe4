/**
 * What a chaos run creates before the workload starts, and the objects' shapes: the storage
 * classes (host-path Delete, Retain and WaitForFirstConsumer; EBS against the emulator, also
 * WaitForFirstConsumer; with a CSI driver, its classes, Immediate and WaitForFirstConsumer), a node in a zone for the selected-node annotation, the ledgers whose
 * acknowledged values are checked at the end, and the decoys: directories outside the plugin's
 * root (and a symlink inside it pointing out) named by PVs whose policy would delete them.
 */
import { createHash } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_SELECTED_NODE, LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import { paths } from '../../src/kube-client/paths.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { newVolume } from '../../test/helpers/objects.js';
import { CSI_DRIVER_NAME } from './csi.js';
import type { RecordingClient } from './history.js';

export const NAMESPACE = 'default';
export const NODE_NAME = 'chaos-node';
export const NODE_ZONE = 'us-east-1a';

export type ClassName = 'chaos-delete' | 'chaos-retain' | 'chaos-wffc' | 'chaos-ebs' | 'chaos-ebs-wffc' | 'chaos-csi' | 'chaos-csi-wffc';

export const CSI_CLASS: ClassName = 'chaos-csi';

const CLASSES: Record<ClassName, { provisioner: string; reclaimPolicy: 'Delete' | 'Retain'; wffc: boolean }> = {
  'chaos-delete': { provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', wffc: false },
  'chaos-retain': { provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Retain', wffc: false },
  'chaos-wffc': { provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', wffc: true },
  'chaos-ebs': { provisioner: AWS_EBS_PLUGIN_NAME, reclaimPolicy: 'Delete', wffc: false },
  'chaos-ebs-wffc': { provisioner: AWS_EBS_PLUGIN_NAME, reclaimPolicy: 'Delete', wffc: true },
  'chaos-csi': { provisioner: CSI_DRIVER_NAME, reclaimPolicy: 'Delete', wffc: false },
  'chaos-csi-wffc': { provisioner: CSI_DRIVER_NAME, reclaimPolicy: 'Delete', wffc: true },
};

const isCsiClass = (name: ClassName): boolean => CLASSES[name].provisioner === CSI_DRIVER_NAME;

/** The classes the workload draws Immediate claims from (the CSI one only when the run has a driver). */
export function immediateClasses(withCsi: boolean): ClassName[] {
  return (['chaos-delete', 'chaos-retain', 'chaos-ebs', 'chaos-csi'] as const).filter((c) => withCsi || !isCsiClass(c));
}

export function wffcClasses(withCsi: boolean): ClassName[] {
  return (['chaos-wffc', 'chaos-ebs-wffc', 'chaos-csi-wffc'] as const).filter((c) => withCsi || !isCsiClass(c));
}

export function isRetainClass(name: string): boolean {
  return CLASSES[name as ClassName]?.reclaimPolicy === 'Retain';
}

export function isWffcClass(name: string): boolean {
  return CLASSES[name as ClassName]?.wffc === true;
}

export function claimPath(name: string): string {
  return paths.claim(NAMESPACE, name);
}

/** Ledgers are Leases (a kind both servers serve): the value is `spec.leaseTransitions`. */
export function ledgerCollection(): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`;
}

export function ledgerPath(n: number): string {
  return `${ledgerCollection()}/chaos-ledger-${n}`;
}

export function ledgerBody(n: number, value: number): object {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `chaos-ledger-${n}` }, spec: { holderIdentity: 'chaos-workload', leaseTransitions: value } };
}

export function newClaim(name: string, className: string, extra: Partial<PersistentVolumeClaim['spec']> = {}, selectedNode = false): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NAMESPACE, ...(selectedNode ? { annotations: { [ANN_SELECTED_NODE]: NODE_NAME } } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: className, ...extra },
  };
}

export function staticVolume(name: string, path: string, policy: string, extra: Partial<PersistentVolume['spec']> = {}, labels: Record<string, string> = {}): PersistentVolume {
  const pv = newVolume(name, '1Gi', { persistentVolumeReclaimPolicy: policy as 'Retain', storageClassName: '', hostPath: { path }, ...extra });
  pv.metadata.labels = labels;
  return pv;
}

/** A decoy: a directory with a file whose content must survive the run untouched. */
export interface Decoy {
  dir: string;
  /** What a PV names for it: the directory, or a symlink inside the root pointing at it. */
  pvPath: string;
  pvName: string;
  claimName: string;
  policy: 'Delete' | 'Recycle';
  digest: string;
}

export function digestOf(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

async function createClasses(client: RecordingClient, withCsi: boolean): Promise<void> {
  for (const [name, c] of Object.entries(CLASSES)) {
    if (!withCsi && isCsiClass(name as ClassName)) continue;
    const body: StorageClass & { apiVersion: string; kind: string } = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: c.provisioner,
      reclaimPolicy: c.reclaimPolicy,
      volumeBindingMode: c.wffc ? 'WaitForFirstConsumer' : 'Immediate',
    };
    await client.send('setup', 'POST', paths.storageClasses(), body);
  }
}

/** Everything the workload needs before it starts (a ledger per worker); throws when a ledger cannot be made. */
export async function createWorld(client: RecordingClient, root: string, decoyRoot: string, seed: number, ledgers: number, withCsi: boolean): Promise<Decoy[]> {
  await createClasses(client, withCsi);
  await client.send('setup', 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE_NAME, labels: { [LABEL_TOPOLOGY_ZONE]: NODE_ZONE } } });
  // A real cluster without kube-controller-manager has no default ServiceAccount, and pods need one.
  await client.send('setup', 'POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  for (let n = 0; n < ledgers; n++) {
    const made = await client.send('ledger', 'POST', ledgerCollection(), ledgerBody(n, 0), { value: 0, object: ledgerPath(n) });
    if (made.outcome !== 'ok') throw new Error(`could not create ledger ${n}: ${made.error ?? ''}`);
  }
  return createDecoys(client, root, decoyRoot, seed);
}

async function createDecoys(client: RecordingClient, root: string, decoyRoot: string, seed: number): Promise<Decoy[]> {
  const decoys: Decoy[] = [];
  const shapes: { policy: 'Delete' | 'Recycle'; viaLink: boolean }[] = [
    { policy: 'Delete', viaLink: false },
    { policy: 'Recycle', viaLink: false },
    { policy: 'Delete', viaLink: true },
  ];
  for (const [i, shape] of shapes.entries()) {
    const dir = join(decoyRoot, `decoy-${i}`);
    await mkdir(dir, { recursive: true });
    const content = `decoy ${i} of run ${seed}: must never be deleted\n`;
    await writeFile(join(dir, 'precious.txt'), content);
    const pvPath = shape.viaLink ? join(root, `link-${i}`) : dir;
    if (shape.viaLink) await symlink(dir, pvPath);
    const decoy: Decoy = { dir, pvPath, pvName: `chaos-decoy-${i}`, claimName: `decoy-${i}`, policy: shape.policy, digest: digestOf(content) };
    await client.send('setup', 'POST', paths.volumes(), staticVolume(decoy.pvName, pvPath, shape.policy));
    await client.send('claim', 'POST', paths.claims(NAMESPACE), newClaim(decoy.claimName, '', { volumeName: decoy.pvName }), { object: claimPath(decoy.claimName) });
    decoys.push(decoy);
  }
  return decoys;
}
