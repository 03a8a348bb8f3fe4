/** Builders for binder tests: PVs, claims and classes in a few words, and a wired fake cluster. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type {
  LabelSelector,
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeClaim,
  StorageClass,
  VolumeNodeAffinity,
} from '@pv-controller/kube/types.js';
import { ANN_DEFAULT_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';
import { claimRefFor } from '@pv-controller/kube/volume-helpers.js';
import { VolumeIndex, type BinderHooks, type VolumeIndexOptions } from '../../../src/controller/binder/index.js';
import { FakeCluster } from '../../helpers/fake-context.js';

export const RWO: PersistentVolumeAccessMode = 'ReadWriteOnce';
export const ROX: PersistentVolumeAccessMode = 'ReadOnlyMany';
export const RWX: PersistentVolumeAccessMode = 'ReadWriteMany';

export interface PvOptions {
  modes?: PersistentVolumeAccessMode[];
  cls?: string;
  phase?: string;
  claim?: PersistentVolumeClaim;
  /** Pre-bind by name only (claimRef without uid). */
  claimNameOnly?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  volumeMode?: string;
  policy?: string;
  deleting?: boolean;
  nodeAffinity?: VolumeNodeAffinity;
}

export function pv(name: string, size: string, o: PvOptions = {}): PersistentVolume {
  const vol: PersistentVolume = {
    metadata: { name, labels: o.labels, annotations: o.annotations },
    spec: {
      capacity: { storage: size },
      accessModes: o.modes ?? [RWO],
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      hostPath: { path: `/tmp/${name}` },
    },
    status: { phase: o.phase ?? 'Available' },
  };
  if (o.cls !== undefined) vol.spec.storageClassName = o.cls;
  if (o.volumeMode) vol.spec.volumeMode = o.volumeMode;
  if (o.nodeAffinity) vol.spec.nodeAffinity = o.nodeAffinity;
  if (o.deleting) {
    vol.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    vol.metadata.finalizers = ['kubernetes.io/pv-protection'];
  }
  if (o.claim) {
    vol.spec.claimRef = claimRefFor(o.claim);
    if (o.claimNameOnly) delete vol.spec.claimRef.uid;
  }
  return vol;
}

export interface PvcOptions {
  ns?: string;
  modes?: PersistentVolumeAccessMode[];
  /** null ⇒ no class at all (nil); "" ⇒ explicitly none. */
  cls?: string | null;
  volumeName?: string;
  selector?: LabelSelector;
  annotations?: Record<string, string>;
  phase?: string;
  volumeMode?: string;
}

export function pvc(name: string, size: string, o: PvcOptions = {}): PersistentVolumeClaim {
  const claim: PersistentVolumeClaim = {
    metadata: { name, namespace: o.ns ?? 'default', annotations: o.annotations },
    spec: { accessModes: o.modes ?? [RWO], resources: { requests: { storage: size } } },
    status: { phase: o.phase ?? 'Pending' },
  };
  if (o.cls !== null) claim.spec.storageClassName = o.cls ?? '';
  if (o.volumeName) claim.spec.volumeName = o.volumeName;
  if (o.selector) claim.spec.selector = o.selector;
  if (o.volumeMode) claim.spec.volumeMode = o.volumeMode;
  return claim;
}

export function storageClass(
  name: string,
  o: { provisioner?: string; mode?: string; isDefault?: boolean; created?: string } = {},
): StorageClass {
  const sc: StorageClass = {
    metadata: { name, creationTimestamp: o.created },
    provisioner: o.provisioner ?? 'example.com/external',
    reclaimPolicy: 'Delete',
    volumeBindingMode: o.mode ?? 'Immediate',
  };
  if (o.isDefault) sc.metadata.annotations = { [ANN_DEFAULT_STORAGE_CLASS]: 'true' };
  return sc;
}

/** A pino logger whose lines are kept in `lines` (parsed), for "logged nothing at error" checks. */
export function capturingLogger(): { logger: Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

export interface Harness {
  fake: FakeCluster;
  index: VolumeIndex;
  hooks: BinderHooks;
}

/** A fake cluster whose PV cache feeds a VolumeIndex, as the controller's wiring does. */
export function harness(hooks: BinderHooks = {}, indexOptions?: VolumeIndexOptions): Harness {
  const fake = new FakeCluster();
  const index = new VolumeIndex(indexOptions);
  fake.onCacheChange((kind, key, obj) => {
    if (kind !== 'PersistentVolume') return;
    if (obj) index.upsert(obj as PersistentVolume);
    else index.remove(key);
  });
  return { fake, index, hooks: { logger: pino({ level: 'silent' }), ...hooks } };
}
