/**
 * The snapshot kinds through the API: the stores the module's informers fill, and every call its
 * decisions make on VolumeSnapshots, VolumeSnapshotContents and VolumeSnapshotClasses. Each write
 * sends the resourceVersion of the copy it was decided on and records the answer in the store,
 * so the next decision sees it; once the module stops, writes are refused (StoppedWriteError),
 * as the runtime's ApiClient refuses them for the other modules.
 */
import { isNotFound } from '@pv-controller/kube/errors.js';
import {
  SNAPSHOT_API_VERSION,
  SNAPSHOT_RESOURCES,
  type VolumeSnapshot,
  type VolumeSnapshotClass,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { MergedStore } from '../../kube-client/cache/merged-store.js';
import type { ObjectStore } from '../runtime/context.js';
import type { ModuleRest } from '../runtime/rest-get.js';
import { StoppedWriteError } from '../runtime/stop-guarded-api.js';

export const SNAPSHOT_GROUP_PATH = `/apis/${SNAPSHOT_API_VERSION}`;

export interface SnapshotStores {
  snapshots: ObjectStore<VolumeSnapshot>;
  contents: ObjectStore<VolumeSnapshotContent>;
  classes: ObjectStore<VolumeSnapshotClass>;
}

/** The stores the informers fill (MergedStores, so own writes land in them too). */
export interface MergedSnapshotStores extends SnapshotStores {
  snapshots: MergedStore<VolumeSnapshot>;
  contents: MergedStore<VolumeSnapshotContent>;
  classes: MergedStore<VolumeSnapshotClass>;
}

export function makeSnapshotStores(): MergedSnapshotStores {
  return { snapshots: new MergedStore(), contents: new MergedStore(), classes: new MergedStore() };
}

export interface SnapshotApi {
  updateSnapshot(vs: VolumeSnapshot): Promise<VolumeSnapshot>;
  updateSnapshotStatus(vs: VolumeSnapshot): Promise<VolumeSnapshot>;
  /** Live GET; undefined when it does not exist. */
  getContent(name: string): Promise<VolumeSnapshotContent | undefined>;
  createContent(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent>;
  updateContent(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent>;
  updateContentStatus(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent>;
  /** Deletes the content object; with `uid`, only if it is still that object. */
  deleteContent(name: string, uid?: string): Promise<void>;
}

/** Collection and object paths of the snapshot kinds. */
export const snapshotPaths = {
  snapshotsAll: (): string => `${SNAPSHOT_GROUP_PATH}/${SNAPSHOT_RESOURCES.snapshots}`,
  snapshot: (ns: string, name: string): string =>
    `${SNAPSHOT_GROUP_PATH}/namespaces/${encodeURIComponent(ns)}/${SNAPSHOT_RESOURCES.snapshots}/${encodeURIComponent(name)}`,
  contents: (): string => `${SNAPSHOT_GROUP_PATH}/${SNAPSHOT_RESOURCES.contents}`,
  content: (name: string): string => `${SNAPSHOT_GROUP_PATH}/${SNAPSHOT_RESOURCES.contents}/${encodeURIComponent(name)}`,
  classes: (): string => `${SNAPSHOT_GROUP_PATH}/${SNAPSHOT_RESOURCES.classes}`,
};

/** The SnapshotApi over REST; `refusal` says why writes are refused (the module has stopped), or undefined. */
export function restSnapshotApi(rest: ModuleRest, stores: MergedSnapshotStores, refusal: () => string | undefined): SnapshotApi {
  const write = async <T extends KubeObject>(call: string, send: () => Promise<T>, store: MergedStore<T>): Promise<T> => {
    const why = refusal();
    if (why !== undefined) throw new StoppedWriteError(call, why);
    const out = await send();
    store.recordWrite(out);
    return out;
  };
  const get = async <T>(path: string): Promise<T | undefined> => {
    try {
      return await rest.request<T>({ method: 'GET', verb: 'get', path });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const put = <T extends KubeObject>(path: string, obj: T): Promise<T> => rest.request<T>({ method: 'PUT', verb: 'update', path, body: obj });
  const vsPath = (vs: VolumeSnapshot): string => snapshotPaths.snapshot(vs.metadata.namespace ?? '', vs.metadata.name ?? '');
  return {
    updateSnapshot: (vs) => write('updateSnapshot', () => put(vsPath(vs), vs), stores.snapshots),
    updateSnapshotStatus: (vs) => write('updateSnapshotStatus', () => put(`${vsPath(vs)}/status`, vs), stores.snapshots),
    getContent: (name) => get<VolumeSnapshotContent>(snapshotPaths.content(name)),
    createContent: (c) =>
      write('createContent', () => rest.request<VolumeSnapshotContent>({ method: 'POST', verb: 'create', path: snapshotPaths.contents(), body: c }), stores.contents),
    updateContent: (c) => write('updateContent', () => put(snapshotPaths.content(c.metadata.name ?? ''), c), stores.contents),
    updateContentStatus: (c) => write('updateContentStatus', () => put(`${snapshotPaths.content(c.metadata.name ?? '')}/status`, c), stores.contents),
    async deleteContent(name, uid) {
      const why = refusal();
      if (why !== undefined) throw new StoppedWriteError('deleteContent', why);
      const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) };
      try {
        await rest.request({ method: 'DELETE', verb: 'delete', path: snapshotPaths.content(name), body });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
