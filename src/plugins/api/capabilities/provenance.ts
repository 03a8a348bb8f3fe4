/**
 * The provenance capability: the plugin can tell, from facts no user can write, that it made the
 * volume a PV names. A Released volume's time to live (pv-controller.io/released-ttl, itself a
 * user-writable annotation) deletes only volumes that pass this check: the file plugins read
 * the record they wrote under their root before creating the directory (fs-common/provenance.ts),
 * the CSI plugin checks the PV's HMAC proof (controller/provenance/key.ts), the cloud plugins
 * read the disk's own tags from the cloud (cloud-common/proof.ts).
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface ProvenanceProver {
  /**
   * True only when this plugin provisioned the volume at the place the PV names, for a PV of this
   * name (the cloud plugins: and for cluster `clusterName`, the controller's --cluster-name).
   * Never throws for a foreign PV.
   */
  provesProvisioned(pv: PersistentVolume, clusterName: string): Promise<boolean>;
}

export const PROVENANCE = defineCapability<ProvenanceProver>()('provenance', ['provesProvisioned']);

export function canProveProvenance(plugin: VolumePlugin): plugin is VolumePlugin & ProvenanceProver {
  return PROVENANCE.claimedBy(plugin);
}
