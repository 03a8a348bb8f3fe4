/** The binder: claims meet volumes, decided on fresh data. */
export { syncClaim } from './sync-claim.js';
export { syncVolume } from './sync-volume.js';
export { VolumeIndex, type VolumeIndexOptions } from './volume-index.js';
export type { BinderHooks } from './hooks.js';
export { checkVolumeSatisfyClaim } from './match.js';
export { binderModule, BINDER_MODULE_NAME } from './module.js';
