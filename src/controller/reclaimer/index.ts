/** The reclaimer: Retain, Delete and Recycle with bounded, restart-proof retries. */
export {
  DEFAULT_MAX_RECLAIM_ATTEMPTS,
  DEFAULT_RECLAIM_CONCURRENCY,
  DEFAULT_RECLAIM_INTERVAL_MS,
  Reclaimer,
  type ReclaimerOptions,
} from './reclaimer.js';
export { readAttempts, type ReclaimAttempts, type RetryPolicy } from './attempts.js';
export { annealDeletionFinalizer } from './finalizers.js';
export { RECLAIMER_MODULE_NAME, reclaimerModule, type ReclaimerModuleOptions } from './module.js';
