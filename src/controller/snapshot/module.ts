/**
 * The snapshot controller (`--controllers` name `snapshot`): what external-snapshotter's
 * snapshot-controller and csi-snapshotter sidecar do, with durable intent and proof before any
 * backend deletion (docs/snapshots.md). It keeps its own informers and three work queues
 * (VolumeSnapshots by namespace/name, VolumeSnapshotContents by name, and source claims holding
 * the pvc-as-source finalizer), started when this process leads and the server serves the kinds;
 * claims and volumes come from the controller's context.
 *
 * `--snapshot-role controller+sidecar` (the default) syncs both queues; `sidecar` only the
 * contents whose driver is one of this process's plugins, beside external-snapshotter's own
 * snapshot-controller, and never binds or writes a VolumeSnapshot. A node agent runs it as a
 * sidecar for its own node's volumes and snapshot handles.
 */
import type { Logger } from 'pino';
import { isConflict } from '@pv-controller/kube/errors.js';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import { FINALIZER_PVC_AS_SNAPSHOT_SOURCE, SNAPSHOT_GROUP } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { loadProvenanceWith, type SnapshotProvenance } from '../provenance/key.js';
import type { ControllerContext } from '../runtime/context.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import { WorkQueue } from '../runtime/queue.js';
import { StoppedWriteError } from '../runtime/stop-guarded-api.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { makeSnapshotStores, restSnapshotApi, type MergedSnapshotStores, type SnapshotApi } from './api.js';
import { syncContent } from './content-sync.js';
import type { SnapshotDeps } from './deps.js';
import { releaseClaimIfNotSource } from './finalizers.js';
import { syncSnapshot } from './snapshot-sync.js';
import { DEFAULT_PROBE_PERIOD_MS, SnapshotWatch } from './watch.js';

export const SNAPSHOT_MODULE_NAME = 'snapshot';

export interface SnapshotModuleOptions {
  /** How often a cluster without the snapshot kinds is asked again (default 1 min). */
  probePeriodMs?: number;
  /** The proof key (default: loaded from the Secret the CSI provenance uses, controller/provenance/key.ts). */
  provenance?: SnapshotProvenance;
  /** Whose key: `<name>-csi-provenance` in the leader-election namespace (default: the leader-election name). */
  provenanceName?: string;
}

export function snapshotModule(options: SnapshotModuleOptions = {}): ControllerModule {
  return { name: SNAPSHOT_MODULE_NAME, create: (ctx, env) => new SnapshotModule(ctx, env, options) };
}

class SnapshotModule implements ModuleInstance {
  private readonly stores: MergedSnapshotStores = makeSnapshotStores();
  private readonly log: Logger;
  private readonly snapshotQueue: WorkQueue;
  private readonly contentQueue: WorkQueue;
  /** Claims holding pvc-as-source, checked for a snapshot of them still being cut. */
  private readonly claimQueue: WorkQueue;
  private readonly api: SnapshotApi | undefined;
  private watch: SnapshotWatch | undefined;
  private deps: SnapshotDeps | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly env: ModuleEnv,
    private readonly options: SnapshotModuleOptions,
  ) {
    this.log = env.logger;
    this.snapshotQueue = new WorkQueue({ name: 'volumesnapshots', log: this.log });
    this.contentQueue = new WorkQueue({ name: 'volumesnapshotcontents', log: this.log });
    this.claimQueue = new WorkQueue({ name: 'snapshot-source-claims', log: this.log });
    this.api = env.rest ? restSnapshotApi(env.rest, this.stores, () => (this.stopped ? 'the snapshot module has stopped' : undefined)) : undefined;
    this.wireWakeUps();
  }

  private get bindsSnapshots(): boolean {
    return this.env.options.snapshotRole === 'controller+sidecar';
  }

  start(): void {
    const { rest, informers } = this.env;
    if (!rest || !informers || !this.api) {
      this.log.warn('no API access for the snapshot kinds in this process: the snapshot controller is idle');
      return;
    }
    const probeMs = this.options.probePeriodMs ?? DEFAULT_PROBE_PERIOD_MS;
    const api = this.api;
    this.watch = new SnapshotWatch(rest, informers, this.stores, this.log, probeMs, {
      prepare: async () => {
        const provenance = await this.loadProvenance(rest);
        if (provenance) this.deps = this.makeDeps(api, provenance);
        return provenance !== undefined;
      },
      ready: () => this.run(),
    });
    this.watch.start();
  }

  /** The proof key, loaded (or made) once the kinds are served; undefined (logged) while it cannot be. */
  private async loadProvenance(rest: NonNullable<ModuleEnv['rest']>): Promise<SnapshotProvenance | undefined> {
    if (this.options.provenance) return this.options.provenance;
    const le = this.env.options.leaderElection;
    try {
      return await loadProvenanceWith(rest, le.resourceNamespace, this.options.provenanceName ?? le.resourceName);
    } catch (err) {
      this.log.error({ err: (err as Error).message, namespace: le.resourceNamespace }, 'could not load the provenance key: no snapshot is cut or deleted until it loads');
      return undefined;
    }
  }

  private makeDeps(api: SnapshotApi, provenance: SnapshotProvenance): SnapshotDeps {
    return {
      ctx: this.ctx,
      stores: this.stores,
      api,
      plugins: this.env.plugins,
      role: this.env.options.snapshotRole,
      clusterName: this.env.options.clusterName,
      provenance,
      log: this.log,
      ...(this.env.metrics ? { metrics: this.env.metrics } : {}),
      enqueueSnapshot: (key) => this.snapshotQueue.add(key),
      enqueueContent: (name) => this.contentQueue.add(name),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.resyncTimer);
    await Promise.all([this.snapshotQueue.shutDown(), this.contentQueue.shutDown(), this.claimQueue.shutDown()]);
    await this.watch?.stop();
  }

  /** The kinds are served and listed: start the workers and the periodic resync. */
  private run(): void {
    if (this.stopped) return;
    const workers = this.env.options.concurrentSyncs;
    if (this.bindsSnapshots) {
      this.snapshotQueue.run(workers, (key) => this.syncKey('snapshot', key));
      this.claimQueue.run(1, (key) => this.syncKey('claim', key));
    }
    this.contentQueue.run(workers, (key) => this.syncKey('content', key));
    this.resync();
    this.resyncTimer = setInterval(() => this.resync(), this.env.options.syncPeriodMs);
    this.log.info({ role: this.env.options.snapshotRole, workers }, 'snapshot controller started');
  }

  private resync(): void {
    if (this.bindsSnapshots) {
      for (const key of this.stores.snapshots.keys()) this.snapshotQueue.add(key);
      for (const pvc of this.ctx.claims.list()) this.enqueueSourceClaim(pvc);
    }
    for (const key of this.stores.contents.keys()) this.contentQueue.add(key);
  }

  private async syncKey(kind: 'snapshot' | 'content' | 'claim', key: ObjectKeyString): Promise<SyncResult> {
    const deps = this.deps;
    if (!deps) return DONE;
    try {
      if (kind === 'claim') {
        const slash = key.indexOf('/');
        await releaseClaimIfNotSource(deps, key.slice(0, slash), key.slice(slash + 1));
        return DONE;
      }
      if (kind === 'snapshot') {
        const vs = this.stores.snapshots.get(key);
        return vs ? await syncSnapshot(deps, vs) : DONE;
      }
      const content = this.stores.contents.get(key);
      return content ? await syncContent(deps, content) : DONE;
    } catch (err) {
      if (err instanceof StoppedWriteError) return DONE;
      if (isConflict(err)) return { kind: 'retry', reason: 'conflict' };
      this.log.warn({ kind, key, err: (err as Error).message }, 'snapshot sync failed; retrying');
      return { kind: 'retry', reason: (err as Error).message };
    }
  }

  /**
   * What wakes which key: a snapshot's change itself; a content's change the content and the
   * snapshot it names; a claim's change the snapshots of it and the one it restores from.
   */
  private wireWakeUps(): void {
    this.stores.snapshots.onChange((key, vs, prev, origin) => {
      if (origin !== 'own-write' && this.bindsSnapshots) this.snapshotQueue.add(key);
      // A snapshot gone for good: its source claim may hold pvc-as-source for nothing now.
      const source = prev?.spec.source.persistentVolumeClaimName;
      if (!vs && source && this.bindsSnapshots) this.claimQueue.add(`${prev.metadata.namespace ?? ''}/${source}`);
    });
    this.stores.contents.onChange((name, content, prev, origin) => {
      const ref = (content ?? prev)?.spec.volumeSnapshotRef;
      if (ref?.name && this.bindsSnapshots) this.snapshotQueue.add(`${ref.namespace ?? ''}/${ref.name}`);
      if (origin !== 'own-write' && content) this.contentQueue.add(name);
    });
    this.stores.classes.onChange(() => {
      // A class appearing can unblock snapshots waiting for it (rare: a full pass over the unbound ones).
      if (!this.bindsSnapshots) return;
      for (const vs of this.stores.snapshots.list()) if (!vs.status?.boundVolumeSnapshotContentName) this.snapshotQueue.add(`${vs.metadata.namespace ?? ''}/${vs.metadata.name ?? ''}`);
    });
    this.env.changes.claims.onChange((_key, pvc, prev) => this.onClaimChange(pvc ?? prev));
  }

  private onClaimChange(pvc: PersistentVolumeClaim | undefined): void {
    if (!pvc || !this.bindsSnapshots) return;
    this.enqueueSourceClaim(pvc);
    const ns = pvc.metadata.namespace ?? '';
    for (const src of [pvc.spec.dataSource, pvc.spec.dataSourceRef]) {
      if (src?.kind === 'VolumeSnapshot' && src.apiGroup === SNAPSHOT_GROUP) this.snapshotQueue.add(`${ns}/${src.name}`);
    }
    for (const vs of this.stores.snapshots.list()) {
      if (vs.metadata.namespace === ns && vs.spec.source.persistentVolumeClaimName === pvc.metadata.name) this.snapshotQueue.add(`${ns}/${vs.metadata.name ?? ''}`);
    }
  }

  /** A claim holding pvc-as-source goes to the claim queue, which frees it once no snapshot of it is being cut. */
  private enqueueSourceClaim(pvc: PersistentVolumeClaim): void {
    if (pvc.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE)) this.claimQueue.add(`${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''}`);
  }
}
