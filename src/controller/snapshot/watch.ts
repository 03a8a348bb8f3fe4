/**
 * The snapshot kinds' informers, started only once the server serves them. On a cluster without
 * external-snapshotter's CRDs the module says so once, stays idle, and asks discovery again every
 * `probePeriodMs`; when the kinds appear it prepares (the module loads its proof key), starts its
 * three reflectors and says when they have listed.
 */
import type { Logger } from 'pino';
import { isNotFound } from '@pv-controller/kube/errors.js';
import { SNAPSHOT_API_VERSION, SNAPSHOT_RESOURCES } from '@pv-controller/kube/snapshot-types.js';
import type { InformerFactory, ModuleInformer } from '../runtime/module.js';
import type { ModuleRest } from '../runtime/rest-get.js';
import { SNAPSHOT_GROUP_PATH, snapshotPaths, type MergedSnapshotStores } from './api.js';

/** How often a cluster without the snapshot kinds is asked again (and a started watch checked for sync). */
export const DEFAULT_PROBE_PERIOD_MS = 60_000;
const SYNC_POLL_MS = 50;

interface ApiResourceList {
  resources?: Array<{ name?: string }>;
}

/** Whether the server serves all three snapshot kinds (discovery of the group version). */
export async function snapshotKindsServed(rest: ModuleRest): Promise<boolean> {
  try {
    const list = await rest.request<ApiResourceList>({ method: 'GET', verb: 'get', path: SNAPSHOT_GROUP_PATH });
    const names = new Set((list.resources ?? []).map((r) => r.name));
    return Object.values(SNAPSHOT_RESOURCES).every((r) => names.has(r));
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

export class SnapshotWatch {
  private informers: ModuleInformer[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private saidAbsent = false;

  constructor(
    private readonly rest: ModuleRest,
    private readonly factory: InformerFactory,
    private readonly stores: MergedSnapshotStores,
    private readonly log: Logger,
    private readonly probePeriodMs: number,
    private readonly hooks: {
      /** Once the kinds are served, before watching them; false: not yet (asked again next period). */
      prepare: () => Promise<boolean>;
      /** The informers have listed. */
      ready: () => void;
    },
  ) {}

  /** Probes now, then every period until the kinds are served. */
  start(): void {
    void this.probe();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  private later(ms: number, next: () => void | Promise<void>): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void next(), ms);
    this.timer.unref?.();
  }

  private async probe(): Promise<void> {
    let served = false;
    try {
      served = await snapshotKindsServed(this.rest);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not ask whether the snapshot kinds are served; asking again');
    }
    if (this.stopped) return;
    if (!served) {
      if (!this.saidAbsent) {
        this.log.info(
          { group: SNAPSHOT_API_VERSION, checkEveryMs: this.probePeriodMs },
          'the snapshot.storage.k8s.io kinds are not served (external-snapshotter\'s CRDs are not installed): the snapshot controller is idle until they are',
        );
        this.saidAbsent = true;
      }
      return this.later(this.probePeriodMs, () => this.probe());
    }
    if (!(await this.hooks.prepare())) return this.later(this.probePeriodMs, () => this.probe());
    if (this.stopped) return;
    this.log.info({ group: SNAPSHOT_API_VERSION }, 'the snapshot kinds are served: watching them');
    const kinds: Array<[string, string, MergedSnapshotStores[keyof MergedSnapshotStores]]> = [
      ['VolumeSnapshotClass', snapshotPaths.classes(), this.stores.classes],
      ['VolumeSnapshotContent', snapshotPaths.contents(), this.stores.contents],
      ['VolumeSnapshot', snapshotPaths.snapshotsAll(), this.stores.snapshots],
    ];
    this.informers = kinds.map(([kind, path, store]) => this.factory({ kind, apiVersion: SNAPSHOT_API_VERSION, path, store: store as never }));
    for (const i of this.informers) i.start();
    this.waitForSync();
  }

  private waitForSync(): void {
    if (this.stopped) return;
    if (this.informers.every((i) => i.hasSynced())) return this.hooks.ready();
    this.later(SYNC_POLL_MS, () => this.waitForSync());
  }
}
