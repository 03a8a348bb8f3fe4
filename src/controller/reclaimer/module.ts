/**
 * The reclaimer as a controller module (`--controllers reclaimer`): it gives the binder its
 * `reclaimVolume` hook (Released / Failed PVs) and, after the binder, syncs every PV itself for
 * finalizer annealing and for unbound PVs deleted while they carry our finalizer.
 *
 * Attempts are `--pv-recycler-maximum-retry`, spaced `--pvclaimbinder-sync-period` apart (by
 * default three, ten minutes apart). On the leader it also sweeps expired archives (archive-sweeper.ts).
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import { DONE } from '../runtime/sync-result.js';
import { Reclaimer, type ReclaimerOptions } from './reclaimer.js';
import type { BinderHookBoard, ReclaimFacts } from '../binder/hooks.js';
import { binderRunsHere } from '../options.js';
import { archiveSweeper } from './archive-sweeper.js';

export const RECLAIMER_MODULE_NAME = 'reclaimer';

export interface ReclaimerModuleOptions extends Partial<Pick<ReclaimerOptions, 'concurrency' | 'retryIntervalMs' | 'metrics'>> {
  /** Called with each Reclaimer built (tests reach `settled()` through it). */
  onCreated?(reclaimer: Reclaimer): void;
}

/** With `board`, its reclaim hook is handed to the binder of this process. */
export function reclaimerModule(options: ReclaimerModuleOptions = {}, board?: BinderHookBoard): ControllerModule {
  const { onCreated, ...rest } = options;
  return {
    name: RECLAIMER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const reclaimer = new Reclaimer({
        ctx,
        plugins: env.plugins,
        clusterName: env.options.clusterName,
        maxAttempts: env.options.recyclerMaximumRetry,
        retryIntervalMs: env.options.syncPeriodMs,
        logger: env.logger,
        binderRunsHere: binderRunsHere(env.options),
        ...(env.metrics ? { metrics: env.metrics } : {}),
        ...rest,
      });
      onCreated?.(reclaimer);
      const sweeper = archiveSweeper(env.plugins, env.options.syncPeriodMs, env.logger, () => ctx.now());
      board?.contribute({ reclaimVolume: (pv: PersistentVolume, facts?: ReclaimFacts) => reclaimer.reclaimVolume(pv, facts) });
      return {
        syncVolume: async (pv: PersistentVolume) => (await reclaimer.syncVolume(pv)) ?? DONE,
        start: () => sweeper.start(),
        stop: async () => {
          await sweeper.stop();
          await reclaimer.close();
        },
      };
    },
  };
}
