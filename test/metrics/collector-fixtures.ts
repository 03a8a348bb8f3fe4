/** Objects, stores and providers shared by the collector and Prometheus tests. */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ObjectLister, UsageSource } from '../../src/metrics/collector.js';
import { MetricsNotSupportedError, type MetricsProvider, type VolumeMetrics } from '../../src/metrics/provider.js';

export function boundPair(
  name: string,
  opts: { namespace?: string; uid?: string; storageClass?: string; refUid?: string } = {},
): { pv: PersistentVolume; pvc: PersistentVolumeClaim } {
  const namespace = opts.namespace ?? 'default';
  const uid = opts.uid ?? `uid-${name}`;
  const pvName = `pv-${name}`;
  const pv: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pvName, resourceVersion: '1' },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: opts.storageClass ?? 'standard',
      hostPath: { path: `/data/${pvName}` },
      claimRef: { kind: 'PersistentVolumeClaim', namespace, name, uid: opts.refUid ?? uid },
    },
    status: { phase: 'Bound' },
  };
  const pvc: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace, uid, resourceVersion: '1' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      volumeName: pvName,
      storageClassName: opts.storageClass ?? 'standard',
    },
    status: { phase: 'Bound' },
  };
  return { pv, pvc };
}

export function unboundVolume(name: string, storageClass = 'standard'): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, resourceVersion: '1' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: storageClass, hostPath: { path: `/data/${name}` } },
    status: { phase: 'Available' },
  };
}

export function pendingClaim(name: string, namespace = 'default', storageClass = 'standard'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '1' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: storageClass },
    status: { phase: 'Pending' },
  };
}

/** A mutable keyed store: volumes by name, claims by "namespace/name". */
export class MapStore<T extends PersistentVolume | PersistentVolumeClaim> implements ObjectLister<T> {
  readonly items = new Map<string, T>();

  constructor(objects: T[] = []) {
    for (const o of objects) this.put(o);
  }

  put(obj: T): void {
    const ns = obj.metadata.namespace;
    this.items.set(ns ? `${ns}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? ''), obj);
  }

  delete(key: string): void {
    this.items.delete(key);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }
}

export function usage(usedBytes: bigint, capacityBytes = 1_000_000n): VolumeMetrics {
  return {
    usedBytes,
    capacityBytes,
    availableBytes: capacityBytes - usedBytes,
    inodes: 1000n,
    inodesUsed: 10n,
    inodesFree: 990n,
    time: new Date(),
  };
}

export const fixedProvider = (m: VolumeMetrics): MetricsProvider => ({ getMetrics: () => Promise.resolve(m) });
export const failingProvider = (message: string): MetricsProvider => ({ getMetrics: () => Promise.reject(new Error(message)) });
export const unsupportedProvider: MetricsProvider = { getMetrics: () => Promise.reject(new MetricsNotSupportedError('a test volume')) };

/** Never settles and ignores its signal: the worst provider there is. Records the signals it got. */
export function hangingProvider(signals: AbortSignal[] = []): MetricsProvider {
  return {
    getMetrics: (signal) => {
      if (signal) signals.push(signal);
      return new Promise<VolumeMetrics>(() => undefined);
    },
  };
}

/** A UsageSource from a PV name → provider table; records every PV it was asked about. */
export function tableSource(table: Record<string, MetricsProvider>, plugin = 'test/plugin'): UsageSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    providerFor: (pv) => {
      const name = pv.metadata.name ?? '';
      asked.push(name);
      const provider = table[name];
      return provider ? { plugin, provider } : undefined;
    },
  };
}
