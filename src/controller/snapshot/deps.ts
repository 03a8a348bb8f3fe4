/**
 * What the snapshot module's decisions are given: the controller's context (claims, volumes, the
 * claim writes, events), the snapshot stores and API, the plugins, the provenance key and the
 * module's own wake-ups. Unit tests build it from a FakeCluster and an in-memory SnapshotApi.
 */
import type { Logger } from 'pino';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { SnapshotRole } from '../options.js';
import type { SnapshotProvenance } from '../provenance/key.js';
import type { ControllerContext } from '../runtime/context.js';
import type { SnapshotApi, SnapshotStores } from './api.js';

export interface SnapshotDeps {
  ctx: ControllerContext;
  stores: SnapshotStores;
  api: SnapshotApi;
  plugins: PluginRegistry;
  role: SnapshotRole;
  clusterName: string;
  provenance: SnapshotProvenance;
  log: Logger;
  metrics?: OperationObserver;
  /** Another sync of a VolumeSnapshot (namespace/name) or VolumeSnapshotContent (name) soon. */
  enqueueSnapshot(key: ObjectKeyString): void;
  enqueueContent(name: string): void;
}
