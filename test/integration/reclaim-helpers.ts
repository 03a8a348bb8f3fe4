/**
 * Shared by the reclaim and protection integration tests: a small REST client for the embedded
 * server (PVs, claims, pods, events), the controller modules to run, a scripted deleter plugin,
 * and decoy directories outside every volume root.
 */
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../../src/kube-client/paths.js';
import type { RunningController } from '../../src/controller/controller.js';
import type { ControllerModule } from '../../src/controller/runtime/module.js';
import { defaultModules } from '../../src/controller/modules.js';
import { protectionModules } from '../../src/controller/protection/index.js';
import { reclaimerModule } from '../../src/controller/reclaimer/index.js';
import type { CoreEvent, PersistentVolume, PersistentVolumeClaim, Pod } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../src/metrics/nil.js';
import type { DeleteRequest, VolumePlugin } from '../../src/plugins/api/core.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { startTestCluster, type TestCluster, type TestClusterOptions } from '../helpers/cluster.js';
import { TestRestClient } from '../helpers/rest-client.js';
import { waitFor } from '../helpers/wait.js';
export { exists } from './provisioning-helpers.js';
export { waitFor };

/** The shipped modules; asserts they include the reclaimer and both protection controllers. */
export function reclaimModules(): ControllerModule[] {
  const modules = defaultModules();
  const names = new Set(modules.map((m) => m.name));
  for (const m of [reclaimerModule(), ...protectionModules()]) {
    if (!names.has(m.name)) throw new Error(`defaultModules() lacks the ${m.name} module`);
  }
  return modules;
}

/**
 * Runs `body` on a fresh test cluster that runs the shipped modules (plus `options`), with a
 * ReclaimApi on it; closes the client and stops the cluster however `body` ends.
 */
export async function withReclaimCluster(
  options: TestClusterOptions,
  body: (cluster: TestCluster, api: ReclaimApi) => Promise<void>,
): Promise<void> {
  const cluster = await startTestCluster({ modules: reclaimModules(), ...options });
  const api = new ReclaimApi(cluster.kc);
  try {
    await body(cluster, api);
  } finally {
    api.close();
    await cluster.stop();
  }
}

/** Resolves once the controller has run `n` more volume syncs than now (a "some time passed" wait). */
export function volumeSyncsPass(controller: RunningController, n: number): Promise<void> {
  return syncsPass(controller, 'volumes', n);
}

export function claimSyncsPass(controller: RunningController, n: number): Promise<void> {
  return syncsPass(controller, 'claims', n);
}

async function syncsPass(controller: RunningController, queue: 'claims' | 'volumes', n: number): Promise<void> {
  const start = controller.stats().queues[queue].syncs;
  await waitFor(() => controller.stats().queues[queue].syncs >= start + n, `${n} ${queue} syncs`);
}

export class ReclaimApi extends TestRestClient {
  createVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.create(paths.volumes(), 'v1', 'PersistentVolume', pv);
  }
  /** Changes PV `name` on its newest copy, retrying on 409 Conflict (see `modify`). */
  modifyVolume(name: string, change: (pv: PersistentVolume) => PersistentVolume): Promise<PersistentVolume> {
    return this.modify(paths.volume(name), change);
  }
  volume(name: string): Promise<PersistentVolume | undefined> {
    return this.getOrUndefined(paths.volume(name));
  }
  deleteVolume(name: string): Promise<void> {
    return this.remove(paths.volume(name));
  }
  createNamespace(name: string): Promise<unknown> {
    return this.create(paths.namespaces(), 'v1', 'Namespace', { metadata: { name } });
  }
  createClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.create(paths.claims(pvc.metadata.namespace ?? 'default'), 'v1', 'PersistentVolumeClaim', pvc);
  }
  claim(name: string, ns = 'default'): Promise<PersistentVolumeClaim | undefined> {
    return this.getOrUndefined(paths.claim(ns, name));
  }
  deleteClaim(name: string, ns = 'default'): Promise<void> {
    return this.remove(paths.claim(ns, name));
  }
  createPod(pod: Pod): Promise<Pod> {
    return this.create(paths.pods(pod.metadata.namespace ?? 'default'), 'v1', 'Pod', pod);
  }
  /** Deletes at once (grace 0): on a real cluster without kubelets a scheduled pod's graceful delete never ends. */
  deletePod(name: string, ns = 'default'): Promise<void> {
    return this.remove(`${paths.pods(ns)}/${encodeURIComponent(name)}?gracePeriodSeconds=0`);
  }
  events(name: string, ns = 'default'): Promise<CoreEvent[]> {
    return this.eventsAbout(ns, name);
  }
}

/** A static PV at `path` (hostPath), with a policy and optionally a claimRef to a claim that never existed. */
export function staticVolume(name: string, path: string, policy: string, o: { releasedFrom?: string; provisionedBy?: string } = {}): PersistentVolume {
  const pv: PersistentVolume = {
    metadata: { name, ...(o.provisionedBy ? { annotations: { 'pv.kubernetes.io/provisioned-by': o.provisionedBy } } : {}) },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: policy,
      storageClassName: '',
      hostPath: { path },
    },
  };
  if (o.releasedFrom) pv.spec.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'default', name: o.releasedFrom, uid: `gone-${name}` };
  return pv;
}

export function claimFor(name: string, volumeName?: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '', ...(volumeName ? { volumeName } : {}) },
  };
}

export function podUsing(name: string, claimName: string): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
  };
}

/** A directory outside every root holding a file, plus the file's path (what must survive). */
export async function decoy(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pvc-decoy-'));
  const file = join(dir, 'precious.txt');
  await writeFile(file, 'do not delete');
  return { dir, file };
}

/** Fills a volume directory with a file and a sub-directory. */
export async function fill(dir: string): Promise<void> {
  await mkdir(join(dir, 'sub'), { recursive: true });
  await writeFile(join(dir, 'data.txt'), 'user data');
  await writeFile(join(dir, 'sub', 'more.txt'), 'more');
}

export async function entries(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** Deletes PVs under /scripted/: fails the first `failures` calls (retryable), then succeeds. */
export class ScriptedDeleter implements VolumePlugin {
  readonly name = 'example.com/scripted';
  readonly maxBackingNameLength = 63;
  calls = 0;

  constructor(private readonly failures: number) {}

  validateParameters(): [] {
    return [];
  }
  handles(pv: PersistentVolume): boolean {
    return pv.spec.hostPath?.path.startsWith('/scripted/') ?? false;
  }
  provision(): Promise<never> {
    return Promise.reject(new PluginError('NotSupported', 'static volumes only', false));
  }
  delete(req: DeleteRequest): Promise<void> {
    void req;
    this.calls++;
    if (this.calls <= this.failures) return Promise.reject(new PluginError('Backend', `backend error #${this.calls}`, true));
    return Promise.resolve();
  }
  metricsFor(): NilMetricsProvider {
    return new NilMetricsProvider('scripted volume');
  }
}
