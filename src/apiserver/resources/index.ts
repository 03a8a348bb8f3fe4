/** Every resource the embedded API server serves (the registry indexes them by group/version/plural). */
import { daemonSetStrategy, deploymentStrategy, replicaSetStrategy } from './apps-workloads.js';
import { csiDriverStrategy } from './csi-drivers.js';
import { csiStorageCapacityStrategy } from './csi-storage-capacities.js';
import { coreEventStrategy } from './events.js';
import { eventsV1Strategy } from './events-v1.js';
import { leaseStrategy } from './leases.js';
import { namespaceStrategy } from './namespaces.js';
import { nodeStrategy } from './nodes.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaims.js';
import { persistentVolumeStrategy } from './persistentvolumes.js';
import { podStrategy } from './pods.js';
import { replicationControllerStrategy } from './replicationcontrollers.js';
import { serviceStrategy } from './services.js';
import { storageClassStrategy } from './storageclasses.js';
import type { ResourceStrategy } from './strategy.js';
import { volumeAttributesClassStrategy } from './volumeattributesclasses.js';

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
  replicationControllerStrategy,
  daemonSetStrategy,
  deploymentStrategy,
  replicaSetStrategy,
];

export {
  csiDriverStrategy,
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
  serviceStrategy,
  storageClassStrategy,
  volumeAttributesClassStrategy,
};
