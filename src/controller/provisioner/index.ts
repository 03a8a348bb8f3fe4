/** Dynamic provisioning: one volume per claim, intent recorded before any side effect. */
export {
  DEFAULT_CLUSTER_NAME,
  Provisioner,
  type ProvisionerBinderHooks,
  type ProvisionerOptions,
} from './provisioner.js';
export { claimBackingName, provisionedVolumeName, PV_NAME_PREFIX } from './request.js';
export { annotatedProvisioner, hasProvisioningFinalizer } from './claim-intent.js';
export * from './events.js';
