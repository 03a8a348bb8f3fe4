/**
 * The module seam: every controller in this process (binder, provisioner, reclaimer, the two
 * protection controllers, the orphan monitor, and the next one) is a ControllerModule. The
 * runtime builds each enabled module once, hands it a ControllerContext and a ModuleEnv, starts
 * it when this process leads, and runs its per-key syncs for every claim and volume key, module
 * after module in the order they are listed (controller/modules.ts). A module never sees the
 * informers, queues or leader election behind the context.
 */
import type { Logger } from 'pino';
import type { RestTransport } from '../../kube-client/transport.js';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import type { OperationObserver, OrphanObserver } from '../../metrics/prometheus.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ChangeListener } from '../../kube-client/cache/merged-store.js';
import type { ControllerContext } from './context.js';
import { CONTROLLER_NAMES, type ControllerName, type ControllerOptions } from '../options.js';
import type { SyncResult } from './sync-result.js';

export interface ControllerModule {
  /**
   * A name from CONTROLLER_NAMES is switched by `--controllers`; any other name always runs
   * (the read-only orphan monitor, a test's probe).
   */
  name: ControllerName | string;
  create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance;
}

/** Where a module hears of every change the controller's stores take, before the queues do. */
export interface ChangeSource<T> {
  onChange(listener: ChangeListener<T>): void;
}

export interface ModuleEnv {
  options: ControllerOptions;
  plugins: PluginRegistry;
  /** The process logger, `component` set to the module's name. */
  logger: Logger;
  /** Where plugin calls are reported (storage_operation_duration_seconds, volume_operation_total_errors). */
  metrics?: OperationObserver;
  /** Where orphan scans are reported (pv_controller_orphaned_volumes). */
  orphans?: OrphanObserver;
  /** Subscribe in `create` to keep an index of your own (the binder's volume index does). */
  changes: {
    volumes: ChangeSource<PersistentVolume>;
    claims: ChangeSource<PersistentVolumeClaim>;
    classes: ChangeSource<StorageClass>;
    /** Fed only while Nodes are watched (`ControllerContext.nodes`). */
    nodes?: ChangeSource<Node>;
  };
  /** Requests by path, for the kinds the ApiClient does not cover (CSIStorageCapacity, CSIDriver). */
  rest?: Pick<RestTransport, 'request'>;
}

export interface ModuleInstance {
  syncClaim?(claim: PersistentVolumeClaim): Promise<SyncResult>;
  syncVolume?(pv: PersistentVolume): Promise<SyncResult>;
  /** Called once this process leads and its caches have synced, before the first sync. */
  start?(): void | Promise<void>;
  /** Called on shutdown and when the lease is lost, after the queues have drained. */
  stop?(): void | Promise<void>;
}

/** Whether `--controllers` leaves the module named `name` on. */
export function isEnabled(name: string, enabled: readonly ControllerName[]): boolean {
  return !(CONTROLLER_NAMES as readonly string[]).includes(name) || enabled.includes(name as ControllerName);
}
