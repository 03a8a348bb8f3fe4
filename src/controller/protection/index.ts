/** The pvc-protection and pv-protection controllers' decisions. */
export {
  PV_PROTECTION_CONTROLLER,
  PVC_PROTECTION_CONTROLLER,
  podsUsingClaim,
  syncClaimProtection,
  syncVolumeProtection,
  type ProtectionDeps,
} from './protection.js';
export { claimKeysOfPod, podUsesClaim } from './pods.js';
export { protectionModules, pvcProtectionModule, pvProtectionModule } from './module.js';
