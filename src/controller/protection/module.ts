/**
 * The protection controllers as controller modules, enabled by default and named as in
 * kube-controller-manager's `--controllers`: `pvc-protection` syncs every claim key after the
 * binder (pod changes enqueue the claims they use), `pv-protection` every volume key.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import type { ControllerContext } from '../runtime/context.js';
import { PV_PROTECTION_CONTROLLER, PVC_PROTECTION_CONTROLLER, syncClaimProtection, syncVolumeProtection } from './protection.js';

export function pvcProtectionModule(): ControllerModule {
  return {
    name: PVC_PROTECTION_CONTROLLER,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const deps = { ctx, logger: env.logger };
      return { syncClaim: (claim: PersistentVolumeClaim) => syncClaimProtection(deps, claim) };
    },
  };
}

export function pvProtectionModule(): ControllerModule {
  return {
    name: PV_PROTECTION_CONTROLLER,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const deps = { ctx, logger: env.logger };
      return { syncVolume: (pv: PersistentVolume) => syncVolumeProtection(deps, pv) };
    },
  };
}

/** Both protection controllers, in the order kube-controller-manager lists them. */
export function protectionModules(): ControllerModule[] {
  return [pvcProtectionModule(), pvProtectionModule()];
}
