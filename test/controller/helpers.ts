/** Shared bits of the controller machinery's integration tests. */
import { pino } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/kube/types.js';

export const silentLog = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });

/** Resolves when `cond()` holds, or rejects after `ms` with `what`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function newVolume(name: string, size = '1Gi', extra: Partial<PersistentVolume['spec']> = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      hostPath: { path: `/tmp/${name}` },
      ...extra,
    },
  };
}

export function newClaim(namespace: string, name: string, size = '1Gi'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace, name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: '' },
  };
}
