/**
 * Objects the scenarios create. PV/PVC pairs vary in class, access modes and size so the
 * binder's matching does real work: every claim has exactly one equally sized volume of its
 * class and modes (a perfect matching exists, and smallest-fit finds it), but shares its class
 * and modes with many others of different sizes; half the claims state their request in other
 * units (`5120Mi` for a `5Gi` volume) so quantities must be compared, not strings.
 */
import type {
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeClaim,
  StorageClass,
} from '@pv-controller/kube/types.js';

export const BENCH_NAMESPACE = 'pv-bench';
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

const CLASS_NAMES = ['gold', 'silver', 'bronze'];
const MODE_SETS: PersistentVolumeAccessMode[][] = [['ReadWriteOnce'], ['ReadWriteMany'], ['ReadOnlyMany']];
const SIZES_GI = [1, 2, 5, 10, 20, 50];

export interface PairSpec {
  index: number;
  pvName: string;
  claimName: string;
  className: string;
  modes: PersistentVolumeAccessMode[];
  sizeGi: number;
}

let runCounter = 0;

/** A run id unique within this process, short enough for object names. */
export function newRunId(): string {
  return `${Date.now().toString(36)}${(runCounter++).toString(36)}`;
}

/** Class names used by a run, e.g. "bench-<run>-gold". */
export function classNames(runId: string): string[] {
  return CLASS_NAMES.map((c) => `bench-${runId}-${c}`);
}

export function pairSpec(runId: string, index: number): PairSpec {
  const classes = classNames(runId);
  // Different strides so class, modes and size vary independently across pairs.
  return {
    index,
    pvName: `bench-${runId}-pv-${index}`,
    claimName: `bench-${runId}-claim-${index}`,
    className: classes[index % classes.length],
    modes: MODE_SETS[Math.floor(index / 3) % MODE_SETS.length],
    sizeGi: SIZES_GI[Math.floor(index / 9) % SIZES_GI.length],
  };
}

export function storageClass(name: string, provisioner = NO_PROVISIONER, parameters?: Record<string, string>): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner,
    parameters,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
}

export function volumeFor(pair: PairSpec): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pair.pvName, labels: { 'pv-bench': 'true' } },
    spec: {
      capacity: { storage: `${pair.sizeGi}Gi` },
      accessModes: pair.modes,
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: pair.className,
      volumeMode: 'Filesystem',
      hostPath: { path: `/var/tmp/pv-bench/${pair.pvName}` },
    },
  };
}

export function claimFor(pair: PairSpec, namespace = BENCH_NAMESPACE): PersistentVolumeClaim {
  const request = pair.index % 2 === 0 ? `${pair.sizeGi}Gi` : `${pair.sizeGi * 1024}Mi`;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: pair.claimName, namespace, labels: { 'pv-bench': 'true' } },
    spec: {
      accessModes: pair.modes,
      resources: { requests: { storage: request } },
      storageClassName: pair.className,
      volumeMode: 'Filesystem',
    },
  };
}

/** A claim for dynamic provisioning through `className`. */
export function provisioningClaim(runId: string, index: number, className: string): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `bench-${runId}-dyn-${index}`, namespace: BENCH_NAMESPACE, labels: { 'pv-bench': 'true' } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: `${SIZES_GI[index % SIZES_GI.length]}Mi` } },
      storageClassName: className,
    },
  };
}

/** A plain PV for the API-server write loops (no class; the name carries the loop and index). */
export function writeLoopVolume(name: string): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: { 'pv-bench': 'true' } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      hostPath: { path: `/var/tmp/pv-bench/${name}` },
    },
  };
}

export function namespaceObject(name = BENCH_NAMESPACE): { apiVersion: string; kind: string; metadata: { name: string } } {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}
