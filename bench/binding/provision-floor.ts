/**
 * The floor of provisioning and deleting host-path volumes: per volume, the requests the
 * controller makes (the scenario's byVerbResource counts show they match) issued by a bare client
 * loop (raw https keep-alive, JSON bodies, no watch, cache or decision) at the same concurrency,
 * and the host-path plugin's file-system work done by a bare loop in the same task: the record
 * written and fsynced (temporary file, fsync, link, fsync of the record directory) and the
 * directory made; on delete the directory removed after an lstat that does not follow it, the
 * record unlinked and the record directory fsynced. Per volume that is 10 requests to provision
 * (the bench's claim create and the controller's 9) and 8 to delete (the bench's claim delete,
 * a pod list, the claim's finalizer off, PV status Released, the attempt charged, the backing
 * deletion recorded, the DELETE, the finalizers off). Each task has one request in flight, as
 * the bind floor's does; a controller that keeps more in flight (its workers, plugin calls and
 * event writes overlap) can beat it on a machine where round trips, not CPU, bound the rate. It runs on the controller run's server, after that controller has
 * stopped, on its own claims and its own root.
 */
import { constants as C, mkdirSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import {
  ANN_BACKING_DELETED,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_PROVISIONED_BY,
  ANN_RECLAIM_FAILED_ATTEMPTS,
  ANN_RECLAIM_LAST_ATTEMPT,
  ANN_STORAGE_PROVISIONER,
  ANN_VALUE_YES,
  EVENT_COMPONENT,
  FINALIZER_PROVISIONING,
  FINALIZER_PV_CONTROLLER,
  FINALIZER_PV_PROTECTION,
  FINALIZER_PVC_PROTECTION,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { connect, expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, namespaceObject, provisioningClaim, storageClass } from '../fixtures.js';
import { cpuSnapshot, cpuSpent } from '../proc/child.js';
import { startProgress } from '../progress.js';
import { requestsBetween, type BenchServer } from '../proc/servers.js';
import type { BenchOptions } from '../scenario.js';
import { createIfMissing, perVolumeByVerb } from './provision-run.js';

export interface FloorSample {
  provisionMs: number;
  deleteMs: number;
  /** Requests per volume each way (the bench's claim create / delete included), by "verb resource"; null without counters. */
  requests: { provision: Record<string, number> | null; delete: Record<string, number> | null };
  requestsPerVolume: { provision: number | null; delete: number | null };
  /** CPU ms per volume of the floor's loops (the bench process) and of the API server; null where unreadable. */
  cpuMsPerVolume: { provision: FloorCpu; delete: FloorCpu };
}

export interface FloorCpu {
  client: number | null;
  server: number | null;
}

const CLAIMS = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
const PVS = '/api/v1/persistentvolumes';

async function call<T>(client: BenchClient, method: string, path: string, body?: unknown, okStatus?: number): Promise<T> {
  const res = await client.raw(method, path, body === undefined ? undefined : JSON.stringify(body));
  if (res.status === okStatus) return undefined as T;
  return JSON.parse(expectOk(res, `${method} ${path}`).body) as T;
}

/** The plugin's record: temporary file written and fsynced, linked, the directory fsynced; then the volume directory. */
async function createOnDisk(root: string, backingName: string, record: unknown): Promise<string> {
  const recordPath = join(root, '.pv-controller', `${backingName}.json`);
  const tmp = `${recordPath}.0000beef`;
  const handle = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
  await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
  await handle.sync();
  await handle.close();
  await fs.link(tmp, recordPath);
  await fs.unlink(tmp);
  await syncDir(join(root, '.pv-controller'));
  const path = join(root, backingName);
  await fs.mkdir(path, { mode: 0o777 });
  return path;
}

async function deleteOnDisk(root: string, path: string, backingName: string): Promise<void> {
  if ((await fs.lstat(path)).isDirectory()) await fs.rmdir(path);
  await fs.unlink(join(root, '.pv-controller', `${backingName}.json`));
  await syncDir(join(root, '.pv-controller'));
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, C.O_RDONLY | C.O_DIRECTORY);
  await handle.sync();
  await handle.close();
}

function volumeFor(claim: PersistentVolumeClaim, path: string): PersistentVolume {
  const { namespace, name, uid, resourceVersion } = claim.metadata;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pvc-${uid}`, annotations: { [ANN_PROVISIONED_BY]: 'kubernetes.io/host-path' }, finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] },
    spec: {
      capacity: { storage: claim.spec.resources?.requests?.storage ?? '1Mi' },
      accessModes: claim.spec.accessModes,
      hostPath: { path, type: 'DirectoryOrCreate' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: claim.spec.storageClassName,
      claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace, name, uid, resourceVersion },
    },
  } as PersistentVolume;
}

function provisionedEvent(claim: PersistentVolumeClaim, pvName: string): unknown {
  const { namespace, name, uid } = claim.metadata;
  return {
    metadata: { name: `${name}.${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`, namespace },
    involvedObject: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace, name, uid },
    reason: 'ProvisioningSucceeded',
    message: `Successfully provisioned volume ${pvName} using kubernetes.io/host-path`,
    type: 'Normal',
    source: { component: EVENT_COMPONENT },
  };
}

interface Provisioned {
  claim: PersistentVolumeClaim;
  pv: PersistentVolume;
  path: string;
  backingName: string;
}

/** One volume provisioned by hand, in the controller's order (see docs/benchmarks.md, provision). */
async function provisionByHand(client: BenchClient, root: string, claimBody: PersistentVolumeClaim): Promise<Provisioned> {
  const name = claimBody.metadata.name!;
  await call(client, 'POST', CLAIMS, { ...claimBody, metadata: { ...claimBody.metadata, finalizers: [FINALIZER_PVC_PROTECTION] } });
  const fresh = await call<PersistentVolumeClaim>(client, 'GET', `${CLAIMS}/${name}`);
  const pvName = `pvc-${fresh.metadata.uid}`;
  await call(client, 'GET', `${PVS}/${pvName}`, undefined, 404);
  fresh.metadata.finalizers = [...(fresh.metadata.finalizers ?? []), FINALIZER_PROVISIONING];
  fresh.metadata.annotations = { ...fresh.metadata.annotations, [ANN_STORAGE_PROVISIONER]: 'kubernetes.io/host-path' };
  const intent = await call<PersistentVolumeClaim>(client, 'PUT', `${CLAIMS}/${name}`, fresh);
  const backingName = `kubernetes-dynamic-${pvName}`;
  const path = await createOnDisk(root, backingName, { version: 1, backingName, subPath: backingName, pvName, claim: name, createdAt: new Date().toISOString() });
  await call(client, 'GET', `${CLAIMS}/${name}`);
  const pv = await call<PersistentVolume>(client, 'POST', PVS, volumeFor(intent, path));
  await call(client, 'POST', `/api/v1/namespaces/${BENCH_NAMESPACE}/events`, provisionedEvent(intent, pvName));
  intent.metadata.finalizers = (intent.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_PROVISIONING);
  intent.metadata.annotations = { ...intent.metadata.annotations, [ANN_BIND_COMPLETED]: ANN_VALUE_YES, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES };
  intent.spec.volumeName = pvName;
  const bound = await call<PersistentVolumeClaim>(client, 'PUT', `${CLAIMS}/${name}`, intent);
  const boundPv = await call<PersistentVolume>(client, 'PUT', `${PVS}/${pvName}/status`, { ...pv, status: { phase: 'Bound' } });
  const status = { phase: 'Bound', accessModes: bound.spec.accessModes, capacity: pv.spec.capacity };
  const claim = await call<PersistentVolumeClaim>(client, 'PUT', `${CLAIMS}/${name}/status`, { ...bound, status });
  return { claim, pv: boundPv, path, backingName };
}

/** One volume deleted by hand, in the controller's order (see docs/benchmarks.md, provision). */
async function deleteByHand(client: BenchClient, root: string, v: Provisioned): Promise<void> {
  const name = v.claim.metadata.name!;
  const pvPath = `${PVS}/${v.pv.metadata.name}`;
  const marked = await call<PersistentVolumeClaim>(client, 'DELETE', `${CLAIMS}/${name}`);
  await call(client, 'GET', `/api/v1/namespaces/${BENCH_NAMESPACE}/pods`);
  await call(client, 'PUT', `${CLAIMS}/${name}`, { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
  const released = await call<PersistentVolume>(client, 'PUT', `${pvPath}/status`, { ...v.pv, status: { phase: 'Released' } });
  const attempts = { [ANN_RECLAIM_FAILED_ATTEMPTS]: '0', [ANN_RECLAIM_LAST_ATTEMPT]: new Date().toISOString() };
  const charged = await call<PersistentVolume>(client, 'PUT', pvPath, { ...released, metadata: { ...released.metadata, annotations: { ...released.metadata.annotations, ...attempts } } });
  await deleteOnDisk(root, v.path, v.backingName);
  const mark = { ...charged.metadata.annotations, [ANN_BACKING_DELETED]: new Date().toISOString() };
  const gone = await call<PersistentVolume>(client, 'PUT', pvPath, { ...charged, metadata: { ...charged.metadata, annotations: mark } });
  const deleted = await call<PersistentVolume>(client, 'DELETE', `${pvPath}?${new URLSearchParams({ propagationPolicy: 'Background' })}`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: gone.metadata.uid } });
  await call(client, 'PUT', pvPath, { ...deleted, metadata: { ...deleted.metadata, finalizers: [] } });
}

interface Counted<T> {
  result: T;
  byVerb: Record<string, number> | null;
  perVolume: number | null;
  cpu: FloorCpu;
}

async function counted<T>(server: BenchServer, n: number, work: () => Promise<T>): Promise<Counted<T>> {
  const before = await server.stats();
  const cpuBefore = cpuSnapshot(process.pid, server.pids);
  const result = await work();
  const spent = cpuSpent(cpuBefore, cpuSnapshot(process.pid, server.pids), n);
  const cpu = { client: spent.controller, server: spent.server };
  const after = await server.stats();
  if (!before || !after) return { result, byVerb: null, perVolume: null, cpu };
  return { result, byVerb: perVolumeByVerb(before, after, n), perVolume: requestsBetween(before, after) / n, cpu };
}

/** Times the floor of N volumes each way on a server no controller watches. */
export async function runProvisionFloor(opts: BenchOptions, server: BenchServer, runId: string, n: number): Promise<FloorSample> {
  const root = join(opts.workDir, `host-path-floor-${runId}`);
  mkdirSync(join(root, '.pv-controller'), { recursive: true, mode: 0o700 });
  const client = await connect(server.kubeconfig);
  const className = `bench-${runId}-floor`;
  try {
    // On a server of its own (the real-cluster floor) nothing has made them yet.
    await createIfMissing(client, '/api/v1/namespaces', namespaceObject());
    await createIfMissing(client, '/apis/storage.k8s.io/v1/storageclasses', storageClass(className, 'kubernetes.io/host-path'));
    const volumes: Provisioned[] = new Array<Provisioned>(n);
    const timedPool = async (label: string, task: (i: number) => Promise<void>): Promise<number> => {
      const progress = startProgress(label, n, 'volumes');
      try {
        return (await runPool(n, opts.concurrency, task, progress)).elapsedMs;
      } finally {
        progress.finish();
      }
    };
    const provision = await counted(server, n, () =>
      timedPool(`provision floor ${n}`, async (i) => {
        volumes[i] = await provisionByHand(client, root, provisioningClaim(`${runId}f`, i, className));
      }),
    );
    const reclaim = await counted(server, n, () => timedPool(`delete floor ${n}`, (i) => deleteByHand(client, root, volumes[i])));
    return {
      provisionMs: provision.result,
      deleteMs: reclaim.result,
      requests: { provision: provision.byVerb, delete: reclaim.byVerb },
      requestsPerVolume: { provision: provision.perVolume, delete: reclaim.perVolume },
      cpuMsPerVolume: { provision: provision.cpu, delete: reclaim.cpu },
    };
  } finally {
    client.close();
  }
}
