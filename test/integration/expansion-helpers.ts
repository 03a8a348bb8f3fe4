/**
 * Shared by the expansion and VolumeAttributesClass tests: one embedded server and controller
 * per cloud plugin with its emulator, claims grown through the API, and waits on claim status.
 */
import type { PersistentVolumeClaim, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import type { TopologyResolver } from '../../src/plugins/cloud-common/zones.js';
import { waitFor } from '../helpers/wait.js';
import { cloudClass, type CloudSetup, startCloudCluster } from './cloud-helpers.js';

export interface ExpansionSetup<E> extends CloudSetup {
  emulator: E;
}

/** A cluster whose only plugin is `make`'s, with the classes `grows` (allowVolumeExpansion) and `fixed`. */
export async function startExpansionCluster<E extends { start(): Promise<string>; stop(): Promise<void> }>(
  emulator: E,
  make: (emulator: E, topology: TopologyResolver) => VolumePlugin,
  provisioner: string,
): Promise<ExpansionSetup<E>> {
  await emulator.start();
  const cloud = await startCloudCluster((topology) => make(emulator, topology));
  await cloud.api.createClass(cloudClass('grows', provisioner, { allowVolumeExpansion: true }));
  await cloud.api.createClass(cloudClass('fixed', provisioner));
  return {
    ...cloud,
    emulator,
    async stop() {
      await cloud.stop();
      await emulator.stop();
    },
  };
}

/** Asks for `storage` on a claim, through a PUT of its newest copy (as `kubectl edit` does). */
export async function requestStorage(s: CloudSetup, name: string, storage: string): Promise<PersistentVolumeClaim> {
  return s.api.modifyClaim('default', name, (claim) => ({
    ...claim,
    spec: { ...claim.spec, resources: { ...claim.spec.resources, requests: { ...claim.spec.resources?.requests, storage } } },
  }));
}

export async function setAttributesClass(s: CloudSetup, name: string, vac: string): Promise<PersistentVolumeClaim> {
  return s.api.modifyClaim('default', name, (claim) => ({ ...claim, spec: { ...claim.spec, volumeAttributesClassName: vac } }));
}

export function createAttributesClass(s: CloudSetup, name: string, driverName: string, parameters: Record<string, string>): Promise<VolumeAttributesClass> {
  return s.transport.request<VolumeAttributesClass>({
    method: 'POST',
    verb: 'create',
    path: '/apis/storage.k8s.io/v1/volumeattributesclasses',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttributesClass', metadata: { name }, driverName, parameters },
  });
}

/** The claim once `done` holds for it. */
export function claimWhen(s: CloudSetup, name: string, what: string, done: (claim: PersistentVolumeClaim) => boolean): Promise<PersistentVolumeClaim> {
  return waitFor(async () => {
    const claim = await s.api.claim('default', name);
    return claim && done(claim) ? claim : undefined;
  }, `claim ${name} ${what}`, { timeoutMs: 30_000 });
}

export const resizeStatusOf = (claim: PersistentVolumeClaim): string | undefined => claim.status?.allocatedResourceStatuses?.storage;
/** The claim's resize and modify conditions (the pvc-unused module's Unused condition is not the expander's). */
export const conditionTypes = (claim: PersistentVolumeClaim): string[] => (claim.status?.conditions ?? []).map((c) => c.type).filter((t) => t !== 'Unused');
