/** Plain PV and claim objects, a silent logger and waitFor, for tests that talk to an API server. */
import { pino } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';

export const silentLog = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });

export { waitFor } from './wait.js';

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
