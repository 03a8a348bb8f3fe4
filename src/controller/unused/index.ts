/** The Unused claim condition (KEP-5541): its shape, who keeps a claim in use, and the module. */
export * from './condition.js';
export { isPodTerminated, podKeepsClaimInUse, PodClaimIndex } from './pods.js';
export { claimInUse, PVC_UNUSED_CONTROLLER, pvcUnusedModule, syncUnusedCondition } from './module.js';
