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
import type { KubeObject, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@pv-controller/kube/types.js';
import type { OperationObserver, OrphanObserver, UnusedConditionObserver } from '../../metrics/prometheus.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ChangeListener, MergedStore } from '../../kube-client/cache/merged-store.js';
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
  /** Where Unused condition writes are reported (pvc_protection_controller_unused_condition_syncs_total). */
  unusedConditions?: UnusedConditionObserver;
  /** Subscribe in `create` to keep an index of your own (the binder's volume index does). */
  changes: {
    volumes: ChangeSource<PersistentVolume>;
    claims: ChangeSource<PersistentVolumeClaim>;
    classes: ChangeSource<StorageClass>;
    /** Fed only while Nodes are watched (`ControllerContext.nodes`). */
    nodes?: ChangeSource<Node>;
    /** Every pod change (the pod informer). */
    pods?: ChangeSource<Pod>;
  };
  /** Requests by path, for the kinds the ApiClient does not cover (CSIStorageCapacity, CSIDriver). */
  rest?: Pick<RestTransport, 'request'>;
  /**
   * An informer of the module's own for a kind the runtime does not watch (the snapshot kinds): a
   * reflector listing and watching `path` into `store`, with the runtime's reconnect settings.
   * The module starts and stops it.
   */
  informers?: InformerFactory;
}

export interface ModuleInformer {
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
}

export type InformerFactory = <T extends KubeObject>(spec: { kind: string; apiVersion: string; path: string; store: MergedStore<T> }) => ModuleInformer;

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
