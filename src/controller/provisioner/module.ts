/**
 * The provisioner as a controller module (`--controllers provisioner`): it hands the binder its
 * provisioning hooks and syncs every claim itself after the binder, which is how claims carrying
 * our intent finalizer are resumed or cleaned up whatever the binder decides. Without the binder
 * in this process it runs standalone: claims annotated for one of our provisioners (by a binder
 * elsewhere — the external-provisioner protocol) are provisioned by its own claim sync. When it
 * starts (leading, before any claim is synced) the plugins remove the stray files a provisioner
 * killed mid-write left behind (temporary volume records; orphans.ts).
 */
import type { PersistentVolumeClaim } from '../../kube/types.js';
import type { VolumePlugin } from '../../plugins/plugin.js';
import { PluginRegistry } from '../../plugins/registry.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../controller.js';
import type { ControllerContext } from '../context.js';
import { removeStrayFiles } from '../orphans.js';
import type { OperationMetrics } from './metrics.js';
import { Provisioner, type ProvisionerOptions } from './provisioner.js';

export const PROVISIONER_MODULE_NAME = 'provisioner';

export interface ProvisionerModuleOptions
  extends Partial<Omit<ProvisionerOptions, 'ctx' | 'plugins' | 'logger' | 'metrics' | 'standalone' | 'clusterName'>> {
  metrics?: OperationMetrics;
  /** Called with each Provisioner built (tests reach `idle()` through it). */
  onCreated?(provisioner: Provisioner): void;
}

/** The module's `plugins`: a PluginRegistry or a list of plugins; anything else is a wiring bug. */
export function pluginRegistryOf(plugins: unknown): PluginRegistry {
  if (plugins instanceof PluginRegistry) return plugins;
  if (plugins === undefined) return new PluginRegistry();
  if (Array.isArray(plugins)) return new PluginRegistry(plugins as VolumePlugin[]);
  throw new TypeError('the provisioner needs a PluginRegistry or an array of volume plugins');
}

export function provisionerModule(options: ProvisionerModuleOptions = {}): ControllerModule {
  const { onCreated, ...rest } = options;
  return {
    name: PROVISIONER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const plugins = pluginRegistryOf(env.plugins);
      const provisioner = new Provisioner({
        ...rest,
        ...(rest.metrics ?? env.metrics ? { metrics: rest.metrics ?? env.metrics } : {}),
        ctx,
        plugins,
        clusterName: env.options.clusterName,
        logger: env.logger,
        standalone: !env.options.controllers.includes('binder'),
      });
      onCreated?.(provisioner);
      return {
        binderHooks: provisioner.binderHooks(),
        syncClaim: (claim: PersistentVolumeClaim) => provisioner.syncClaim(claim),
        // Before the first provision: what a provisioner killed mid-write left is cleaned up.
        start: async () => void (await removeStrayFiles(plugins.all(), env.logger)),
        stop: () => provisioner.stop(),
      };
    },
  };
}
