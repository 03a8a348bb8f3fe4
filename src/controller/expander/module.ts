/**
 * The expander as a controller module (`--controllers expander`, kube-controller-manager's
 * expand controller and external-resizer's resize and modify controllers in one): it syncs every
 * claim after the binder and changes the volumes of bound claims that ask for more storage or
 * another VolumeAttributesClass.
 */
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ControllerContext } from '../runtime/context.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import { Expander, type ExpanderOptions } from './expander.js';
import { ClassExpansionCheck } from './class-check.js';

export const EXPANDER_MODULE_NAME = 'expander';

export interface ExpanderModuleOptions extends Partial<Pick<ExpanderOptions, 'concurrency' | 'initialBackoffMs' | 'maxBackoffMs' | 'scope'>> {
  /** Called with each Expander built (tests reach `idle()` through it). */
  onCreated?(expander: Expander): void;
}

export function expanderModule(options: ExpanderModuleOptions = {}): ControllerModule {
  const { onCreated, ...rest } = options;
  return {
    name: EXPANDER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const expander = new Expander({
        ...rest,
        ctx,
        plugins: env.plugins,
        logger: env.logger,
        ...(env.metrics ? { metrics: env.metrics } : {}),
      });
      onCreated?.(expander);
      // The central controller's: a node agent serves one node, and N agents would say it N times.
      const classCheck = rest.scope === 'node' ? undefined : new ClassExpansionCheck(ctx, env.plugins);
      if (classCheck) env.changes.classes.onChange((_key, cls) => classCheck.check(cls));
      return {
        syncClaim: (claim: PersistentVolumeClaim) => expander.syncClaim(claim),
        start: () => classCheck?.start(),
        stop: () => {
          classCheck?.stop();
          return expander.stop();
        },
      };
    },
  };
}
