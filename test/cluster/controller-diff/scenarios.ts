/**
 * The binder/reclaim decision-table scenarios, as initial objects and later steps, for the
 * controller differential: each scenario lives in its own namespace with its own volume names,
 * so all of them run side by side on one control plane. `{root}` in a path is the run's host-path
 * directory (under /tmp, where kube-controller-manager's host-path deleter works); `{class}`, the
 * default class name, is the scenario's id, so no scenario's claim can take another's volume.
 */

export interface Step {
  method: 'POST' | 'DELETE' | 'PATCH';
  path: string;
  body?: unknown;
}

export interface Scenario {
  id: string;
  title: string;
  /** Created in order before the controllers are awaited (cluster-scoped ones need no namespace). */
  objects: { path: string; body: Record<string, unknown> }[];
  /** Applied once the initial objects converged; then the scenario converges again. */
  then?: Step[];
  /**
   * Compare the state the initial objects converged to as well (before `then`), and check that
   * each claim's Unused condition moved forward in time from there (run.ts, `unusedTimes`).
   */
  compareBeforeSteps?: boolean;
}

const PVS = '/api/v1/persistentvolumes';
const SCS = '/apis/storage.k8s.io/v1/storageclasses';
const claimsOf = (ns: string): string => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;

interface VolumeOpts {
  size?: string;
  cls?: string;
  modes?: string[];
  policy?: string;
  volumeMode?: string;
  labels?: Record<string, string>;
  claimRef?: { namespace: string; name: string; uid?: string };
  annotations?: Record<string, string>;
  finalizers?: string[];
}

function volume(name: string, o: VolumeOpts = {}): { path: string; body: Record<string, unknown> } {
  const spec: Record<string, unknown> = {
    capacity: { storage: o.size ?? '5Gi' },
    accessModes: o.modes ?? ['ReadWriteOnce'],
    storageClassName: o.cls ?? '{class}',
    persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
    hostPath: { path: `{root}/${name}` },
  };
  if (o.volumeMode) spec.volumeMode = o.volumeMode;
  if (o.claimRef) spec.claimRef = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', ...o.claimRef };
  const metadata: Record<string, unknown> = { name };
  if (o.labels) metadata.labels = o.labels;
  if (o.annotations) metadata.annotations = o.annotations;
  if (o.finalizers) metadata.finalizers = o.finalizers;
  return { path: PVS, body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata, spec } };
}

interface ClaimOpts {
  size?: string;
  cls?: string | null;
  modes?: string[];
  volumeMode?: string;
  volumeName?: string;
  selector?: Record<string, string>;
}

function claim(ns: string, name: string, o: ClaimOpts = {}): { path: string; body: Record<string, unknown> } {
  const spec: Record<string, unknown> = { accessModes: o.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } } };
  if (o.cls !== null) spec.storageClassName = o.cls ?? '{class}';
  if (o.volumeMode) spec.volumeMode = o.volumeMode;
  if (o.volumeName) spec.volumeName = o.volumeName;
  if (o.selector) spec.selector = { matchLabels: o.selector };
  return { path: claimsOf(ns), body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec } };
}

function storageClass(name: string, extra: Record<string, unknown> = {}): { path: string; body: Record<string, unknown> } {
  return { path: SCS, body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'kubernetes.io/host-path', ...extra } };
}

const deleteClaim = (ns: string, name: string): Step => ({ method: 'DELETE', path: `${claimsOf(ns)}/${name}` });

const podsOf = (ns: string): string => `/api/v1/namespaces/${ns}/pods`;

/**
 * A pod referencing claim `c`, never scheduled (no node, no scheduler): it counts as using the
 * claim for the Unused condition, and a DELETE removes it at once, with no kubelet to wait for.
 */
function podUsingClaim(ns: string, name: string): { path: string; body: Record<string, unknown> } {
  return {
    path: podsOf(ns),
    body: {
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }] },
    },
  };
}

/** Scenario ids double as namespace and volume-name prefixes ("cd-static-…"). */
export const SCENARIOS: Scenario[] = [
  {
    id: 'cd-static', title: 'a claim binds the smallest static volume that fits',
    objects: [volume('cd-static-small', { size: '1Gi' }), volume('cd-static-fit', { size: '3Gi' }), volume('cd-static-big', { size: '50Gi' }), claim('cd-static', 'c', { size: '2Gi' })],
  },
  {
    id: 'cd-prebound-claim', title: 'a claim naming its volume binds it',
    objects: [volume('cd-prebound-claim-a'), volume('cd-prebound-claim-b', { size: '1Gi' }), claim('cd-prebound-claim', 'c', { volumeName: 'cd-prebound-claim-a' })],
  },
  {
    id: 'cd-prebound-pv', title: 'a volume whose claimRef names the claim (no uid) is bound to it',
    objects: [volume('cd-prebound-pv-a', { claimRef: { namespace: 'cd-prebound-pv', name: 'c' } }), volume('cd-prebound-pv-b', { size: '1Gi' }), claim('cd-prebound-pv', 'c')],
  },
  {
    id: 'cd-prebound-missing', title: 'a claim naming a volume that does not exist stays Pending',
    objects: [claim('cd-prebound-missing', 'c', { volumeName: 'cd-prebound-missing-nowhere' })],
  },
  {
    id: 'cd-misbound', title: 'a volume pre-bound to another claim uid is not taken',
    objects: [volume('cd-misbound-a', { claimRef: { namespace: 'cd-misbound', name: 'c', uid: '00000000-0000-0000-0000-000000000000' } }), claim('cd-misbound', 'c')],
  },
  {
    id: 'cd-selector', title: 'a label selector picks the matching volume',
    objects: [volume('cd-selector-gold', { labels: { tier: 'gold' } }), volume('cd-selector-plain', { size: '2Gi' }), claim('cd-selector', 'c', { selector: { tier: 'gold' } })],
  },
  {
    id: 'cd-class-mismatch', title: 'a claim of a class no volume has and no StorageClass exists for stays Pending',
    objects: [volume('cd-class-mismatch-a'), claim('cd-class-mismatch', 'c', { cls: 'cd-nonexistent' })],
  },
  {
    id: 'cd-no-class', title: 'a claim without a class (and no default class) binds a volume without a class',
    objects: [volume('cd-no-class-a', { cls: '' }), claim('cd-no-class', 'c', { cls: '' })],
  },
  {
    id: 'cd-volume-mode', title: 'a Block volume does not satisfy a Filesystem claim',
    objects: [volume('cd-volume-mode-a', { volumeMode: 'Block' }), claim('cd-volume-mode', 'c')],
  },
  {
    id: 'cd-access-mode', title: 'a ReadWriteOnce volume does not satisfy a ReadWriteMany claim',
    objects: [volume('cd-access-mode-a'), claim('cd-access-mode', 'c', { modes: ['ReadWriteMany'] })],
  },
  {
    id: 'cd-retain', title: 'a Retain volume is Released when its claim goes',
    objects: [volume('cd-retain-a'), claim('cd-retain', 'c', { volumeName: 'cd-retain-a' })],
    then: [deleteClaim('cd-retain', 'c')],
  },
  {
    id: 'cd-delete', title: 'a static host-path Delete volume under /tmp is deleted when its claim goes',
    objects: [volume('cd-delete-a', { policy: 'Delete' }), claim('cd-delete', 'c', { volumeName: 'cd-delete-a' })],
    then: [deleteClaim('cd-delete', 'c')],
  },
  {
    id: 'cd-provision', title: 'host-path provisioning, then deletion with the claim',
    objects: [storageClass('cd-provision'), claim('cd-provision', 'c', { cls: 'cd-provision' })],
    then: [deleteClaim('cd-provision', 'c')],
  },
  {
    id: 'cd-provision-retain', title: 'host-path provisioning with a Retain class keeps the volume Released',
    objects: [storageClass('cd-provision-retain', { reclaimPolicy: 'Retain' }), claim('cd-provision-retain', 'c', { cls: 'cd-provision-retain' })],
    then: [deleteClaim('cd-provision-retain', 'c')],
  },
  {
    id: 'cd-mount-options', title: 'a host-path class with mount options is refused and the claim stays Pending',
    objects: [storageClass('cd-mount-options', { mountOptions: ['noatime'] }), claim('cd-mount-options', 'c', { cls: 'cd-mount-options' })],
  },
  {
    id: 'cd-unused-never', title: 'a Bound claim no pod ever referenced is Unused (NoPodsUsingPVC)',
    objects: [volume('cd-unused-never-a'), claim('cd-unused-never', 'c', { volumeName: 'cd-unused-never-a' })],
  },
  {
    id: 'cd-unused-pod-gone', title: 'a claim a pending pod references is not Unused (PodUsingPVC), and is once the pod is deleted',
    objects: [podUsingClaim('cd-unused-pod-gone', 'p'), volume('cd-unused-pod-gone-a'), claim('cd-unused-pod-gone', 'c', { volumeName: 'cd-unused-pod-gone-a' })],
    then: [{ method: 'DELETE', path: `${podsOf('cd-unused-pod-gone')}/p` }],
    compareBeforeSteps: true,
  },
  {
    id: 'cd-unused-pod-done', title: 'a claim whose only pod Succeeded is Unused again',
    objects: [podUsingClaim('cd-unused-pod-done', 'p'), volume('cd-unused-pod-done-a'), claim('cd-unused-pod-done', 'c', { volumeName: 'cd-unused-pod-done-a' })],
    then: [{ method: 'PATCH', path: `${podsOf('cd-unused-pod-done')}/p/status`, body: { status: { phase: 'Succeeded' } } }],
    compareBeforeSteps: true,
  },
  {
    id: 'cd-external-finalizer', title: 'an in-tree provisioned Delete volume trades the external provisioner finalizer for kubernetes.io/pv-controller',
    objects: [volume('cd-external-finalizer-a', {
      policy: 'Delete', cls: 'cd-external-finalizer-none',
      annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path' },
      finalizers: ['external-provisioner.volume.kubernetes.io/finalizer'],
    })],
  },
];
