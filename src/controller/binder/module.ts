/**
 * The binder as a controller module (`--controllers binder`), listed first so the modules after
 * it decide on what it wrote. It keeps the volume index and the pending-claim wake-ups current
 * from every store change, and calls the provisioning and reclaim hooks the provisioner and the
 * reclaimer contribute on `board` (wired in controller/modules.ts; combined when it starts).
 */
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import { combineHooks, type BinderHookBoard, type BinderHooks } from './hooks.js';
import { PendingClaims } from './pending-claims.js';
import { syncClaim } from './sync-claim.js';
import { syncVolume } from './sync-volume.js';
import { VolumeIndex } from './volume-index.js';

export const BINDER_MODULE_NAME = 'binder';

/** Without a board the binder provisions and reclaims nothing itself (claims wait for an external provisioner). */
export function binderModule(board?: BinderHookBoard): ControllerModule {
  return {
    name: BINDER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const index = new VolumeIndex();
      const pending = new PendingClaims();
      env.changes.volumes.onChange((name, pv, prev) => {
        if (pv) index.upsert(pv);
        else index.remove(name);
        // A volume that became free wakes the claims that may want it, not the next resync.
        if (pv) for (const key of pending.wokenBy(pv, prev)) ctx.enqueueClaim(key);
      });
      env.changes.claims.onChange((key, pvc) => pending.track(key, pvc));
      // A class created (or changed) after its claims wakes them too: they may provision now.
      env.changes.classes.onChange((_name, cls, prev) => {
        if (cls) for (const key of pending.wokenByClass(cls, prev)) ctx.enqueueClaim(key);
      });
      const contributed = board?.open() ?? [];
      let hooks: BinderHooks = { logger: env.logger };
      return {
        start: () => {
          hooks = combineHooks(contributed, env.logger);
        },
        syncClaim: (claim) => syncClaim(ctx, index, claim, hooks),
        syncVolume: (pv) => syncVolume(ctx, index, pv, hooks),
      };
    },
  };
}
