/**
 * Publishes how many orphaned backing volumes each plugin holds (`pv_controller_orphaned_volumes`),
 * so a leak is visible on a dashboard before anyone runs `pv-controller orphans`. Read-only: it
 * never deletes. Runs on the leader only, every `--pvclaimbinder-sync-period` (listing a cloud costs
 * API calls), from the controller's own stores: the claims that are provisioning carry our
 * finalizer from before their volume exists, so a volume being made is never counted.
 */
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import { countOrphans } from './orphans.js';
import { canListBackingVolumes } from '../../plugins/api/capabilities/backing-volumes.js';

export const ORPHAN_MONITOR_MODULE_NAME = 'orphan-monitor';

export function orphanMonitorModule(options: { periodMs?: number } = {}): ControllerModule {
  return {
    name: ORPHAN_MONITOR_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const plugins = env.plugins.all();
      const periodMs = options.periodMs ?? env.options.syncPeriodMs;
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<void> | undefined;
      const scan = async (): Promise<void> => {
        try {
          const counts = await countOrphans(plugins, env.options.clusterName, {
            listClaims: async () => ctx.claims.list(),
            listVolumes: async () => ctx.volumes.list(),
          });
          env.orphans?.orphanCounts(counts);
          const total = [...counts.values()].reduce((a, b) => a + b, 0);
          if (total > 0) env.logger.warn({ orphans: Object.fromEntries(counts) }, 'orphaned backing volumes found; see `pv-controller orphans`');
        } catch (err) {
          env.logger.warn({ err }, 'orphan scan failed');
        }
      };
      const tick = (): void => {
        running ??= scan().finally(() => (running = undefined));
      };
      return {
        start: () => {
          if (!env.orphans || !plugins.some(canListBackingVolumes)) return;
          tick();
          timer = setInterval(tick, periodMs);
          timer.unref();
        },
        stop: async () => {
          clearInterval(timer);
          await running;
        },
      };
    },
  };
}
