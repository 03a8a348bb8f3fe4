/**
 * Shared by the restore and clone integration suites: a test cluster with the copying test double
 * (copying-plugin.ts) serving a class `dirs`, stopped after each test, and a REST client that also
 * speaks the snapshot kinds (objects and their status subresource).
 */
import { CONTROLLER_NAMES } from '../../src/controller/options.js';
import { afterEach } from 'node:test';
import { join } from 'node:path';
import { isNotFound } from '@pv-controller/kube/errors.js';
import { SNAPSHOT_API_VERSION, SNAPSHOT_RESOURCES, type VolumeSnapshot, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { CopyingHostPathPlugin } from './copying-plugin.js';
import { TestApi, waitFor } from './provisioning-helpers.js';

const snapshots = (ns: string): string => `/apis/${SNAPSHOT_API_VERSION}/namespaces/${ns}/${SNAPSHOT_RESOURCES.snapshots}`;
const contents = `/apis/${SNAPSHOT_API_VERSION}/${SNAPSHOT_RESOURCES.contents}`;

export class SnapshotTestApi extends TestApi {
  /** Whether the server's discovery lists snapshot.storage.k8s.io/v1. */
  async servesSnapshots(): Promise<boolean> {
    try {
      await this.transport.request({ method: 'GET', verb: 'get', path: `/apis/${SNAPSHOT_API_VERSION}` });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  createSnapshot(vs: VolumeSnapshot): Promise<VolumeSnapshot> {
    return this.transport.request({ method: 'POST', verb: 'create', path: snapshots(vs.metadata.namespace ?? 'default'), body: vs });
  }

  snapshot(ns: string, name: string): Promise<VolumeSnapshot | undefined> {
    return this.getOrUndefined(`${snapshots(ns)}/${name}`);
  }

  /** PUT to the status subresource, as a snapshot controller sets status. */
  snapshotStatus(vs: VolumeSnapshot): Promise<VolumeSnapshot> {
    return this.update(`${snapshots(vs.metadata.namespace ?? 'default')}/${vs.metadata.name ?? ''}/status`, vs);
  }

  createContent(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
    return this.transport.request({ method: 'POST', verb: 'create', path: contents, body: content });
  }

  contentStatus(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
    return this.update(`${contents}/${content.metadata.name ?? ''}/status`, content);
  }
}

export interface DataSourceCluster {
  cluster: TestCluster;
  api: SnapshotTestApi;
  plugin: CopyingHostPathPlugin;
  /** Starts the controller and creates StorageClass `dirs` (Immediate, Delete) of the test double. */
  ready(): Promise<void>;
}

/** Call at the top of a suite: returns a starter of clusters that are stopped after each test. */
export function dataSourceClusters(): () => Promise<DataSourceCluster> {
  const running: DataSourceCluster[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) {
      s.api.close();
      await s.cluster.stop();
    }
  });
  return async () => {
    const cluster = await startTestCluster({ noHostPath: true, noController: true });
    const plugin = new CopyingHostPathPlugin(cluster.hostPathRoot, join(cluster.dataDir, 'snapshots'));
    cluster.plugins.register(plugin);
    const api = new SnapshotTestApi(cluster.kc);
    const ready = async (): Promise<void> => {
      // The tests play the snapshot controller themselves (they write the snapshots' status), so
      // ours is not run beside them: it would bind and update the same objects.
      await cluster.startController({ controllers: CONTROLLER_NAMES.filter((n) => n !== 'snapshot') });
      await api.createClass({ metadata: { name: 'dirs' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    };
    const s = { cluster, api, plugin, ready };
    running.push(s);
    return s;
  };
}

export function boundClaim(s: DataSourceCluster, name: string): Promise<PersistentVolumeClaim> {
  return waitFor(async () => {
    const c = await s.api.claim('default', name);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, `claim ${name} to be Bound`, { timeoutMs: 60_000 });
}
