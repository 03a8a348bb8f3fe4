/**
 * The provisioner as a controller module (`--controllers provisioner`): it hands the binder its
 * provisioning hooks and syncs every claim itself after the binder, which is how claims carrying
 * our intent finalizer are resumed or cleaned up whatever the binder decides. Without the binder
 * in this process it runs standalone: claims annotated for one of our provisioners (by a binder
 * elsewhere — the external-provisioner protocol) are provisioned by its own claim sync. When it
 * starts (leading, before any claim is synced) the plugins remove the stray files a provisioner
 * killed mid-write left behind (temporary volume records; orphans.ts).
 */
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import type { BinderHookBoard } from '../binder/hooks.js';
import { binderRunsHere } from '../options.js';
import { removeStrayFiles } from '../orphan-monitor/orphans.js';
import { isNodeScoped } from '../../plugins/api/capabilities/node-scoped.js';
import { Provisioner, type ProvisionerOptions } from './provisioner.js';

export const PROVISIONER_MODULE_NAME = 'provisioner';

export interface ProvisionerModuleOptions
  extends Partial<Omit<ProvisionerOptions, 'ctx' | 'plugins' | 'logger' | 'metrics' | 'binderRunsHere' | 'clusterName' | 'rest'>> {
  metrics?: OperationObserver;
  /** Called with each Provisioner built (tests reach `idle()` through it). */
  onCreated?(provisioner: Provisioner): void;
}

/** With `board`, its provisioning hooks are handed to the binder of this process. */
export function provisionerModule(options: ProvisionerModuleOptions = {}, board?: BinderHookBoard): ControllerModule {
  const { onCreated, ...rest } = options;
  return {
    name: PROVISIONER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const provisioner = new Provisioner({
        ...rest,
        ...(rest.metrics ?? env.metrics ? { metrics: rest.metrics ?? env.metrics } : {}),
        ctx,
        plugins: env.plugins,
        clusterName: env.options.clusterName,
        logger: env.logger,
        binderRunsHere: binderRunsHere(env.options),
        ...(env.rest ? { rest: env.rest } : {}),
      });
      onCreated?.(provisioner);
      board?.contribute(provisioner.binderHooks());
      return {
        syncClaim: (claim: PersistentVolumeClaim) => provisioner.syncClaim(claim),
        // Before the first provision: what a restart undid is put back (sized volumes mounted
        // again), and what a provisioner killed mid-write left is cleaned up.
        start: async () => {
          for (const plugin of env.plugins.withCapability(isNodeScoped)) {
            await plugin.recover().catch((err: unknown) => env.logger.warn({ plugin: plugin.name, err: (err as Error).message }, 'recovery failed'));
          }
          await removeStrayFiles(env.plugins.all(), env.logger);
        },
        stop: () => provisioner.stop(),
      };
    },
  };
}
