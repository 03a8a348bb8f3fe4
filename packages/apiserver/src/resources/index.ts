/** Every resource the embedded API server serves (the registry indexes them by group/version/plural). */
import { daemonSetStrategy, deploymentStrategy, replicaSetStrategy } from './apps/apps-workloads.js';
import { csiDriverStrategy } from './storage.k8s.io/csi-drivers.js';
import { csiNodeStrategy } from './storage.k8s.io/csinodes.js';
import { csiStorageCapacityStrategy } from './storage.k8s.io/csi-storage-capacities.js';
import { coreEventStrategy } from './core/events.js';
import { eventsV1Strategy } from './events.k8s.io/events-v1.js';
import { leaseStrategy } from './coordination.k8s.io/leases.js';
import { namespaceStrategy } from './core/namespaces.js';
import { nodeStrategy } from './core/nodes.js';
import { persistentVolumeClaimStrategy } from './core/persistentvolumeclaims.js';
import { persistentVolumeStrategy } from './core/persistentvolumes.js';
import { podStrategy } from './core/pods.js';
import { replicationControllerStrategy } from './core/replicationcontrollers.js';
import { secretStrategy } from './core/secrets.js';
import { serviceStrategy } from './core/services.js';
import { storageClassStrategy } from './storage.k8s.io/storageclasses.js';
import type { ResourceStrategy } from './strategy.js';
import { builtInDefinitions } from './custom/built-in-definitions.js';
import { customResourceDefinitionStrategy } from './apiextensions.k8s.io/customresourcedefinitions.js';
import { customResourceStrategies } from './custom/custom-strategy.js';
import { volumeAttributesClassStrategy } from './storage.k8s.io/volumeattributesclasses.js';

export const strategies: ResourceStrategy[] = [
  namespaceStrategy,
  persistentVolumeStrategy,
  persistentVolumeClaimStrategy,
  podStrategy,
  nodeStrategy,
  serviceStrategy,
  coreEventStrategy,
  storageClassStrategy,
  eventsV1Strategy,
  leaseStrategy,
  volumeAttributesClassStrategy,
  csiDriverStrategy,
  csiStorageCapacityStrategy,
  csiNodeStrategy,
  secretStrategy,
  replicationControllerStrategy,
  daemonSetStrategy,
  deploymentStrategy,
  replicaSetStrategy,
  customResourceDefinitionStrategy,
  // The snapshot kinds, served from their CustomResourceDefinitions (created at start, see server.ts).
  ...builtInDefinitions().flatMap((crd) => customResourceStrategies(crd.spec)),
];

export {
  csiDriverStrategy,
  csiNodeStrategy,
  csiStorageCapacityStrategy,
  coreEventStrategy,
  daemonSetStrategy,
  deploymentStrategy,
  eventsV1Strategy,
  leaseStrategy,
  namespaceStrategy,
  nodeStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeStrategy,
  podStrategy,
  replicaSetStrategy,
  replicationControllerStrategy,
  secretStrategy,
  serviceStrategy,
  storageClassStrategy,
  volumeAttributesClassStrategy,
};
