/**
 * The real Kubernetes side of `--real-cluster`: a fresh etcd + kube-apiserver on loopback
 * (tools/cluster/control-plane.ts) as a bench server, and kube-controller-manager with only its
 * persistent-volume controllers as a controller under test. Both controllers of a comparison get
 * the same identity (the admin token: system:masters, exempt from API Priority and Fairness), the
 * same client-side rate limit (lifted: UNLIMITED_QPS for QPS and burst) and the same sync period.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { countAuditWindow, type AuditWindowCounts } from '../../tools/cluster/audit.js';
import { startControlPlane, type ControlPlane } from '../../tools/cluster/control-plane.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { WallWindow } from '../binding/window.js';
import { connect, expectOk } from '../client/kube-client.js';
import { fileTimestamp } from '../report.js';
import type { BenchOptions } from '../scenario.js';
import { peakRssBytes } from './child.js';
import { UNLIMITED_QPS, type OptionalFlag, type RunningControllerProcess } from './controller.js';
import { noStats, scratchDir, type BenchServer } from './servers.js';

/** kube-controller-manager's default `--pvclaimbinder-sync-period`, given to both controllers. */
export const SYNC_PERIOD = '15s';

/** Our controller's flags that match what kube-controller-manager is given. */
export const OUR_MATCHING_FLAGS: OptionalFlag[] = [
  { flag: '--pvclaimbinder-sync-period', args: ['--pvclaimbinder-sync-period', SYNC_PERIOD] },
];

/** Where kube-controller-manager's host-path provisioner puts every volume (pkg/volume/hostpath). */
export const KCM_HOST_PATH_ROOT = '/tmp/hostpath_pv/';

/** User-Agent prefixes that tell the two controllers' requests apart in the audit log. */
export const USER_AGENT = { ours: 'pv-controller', kcm: 'kube-controller-manager/' } as const;

export interface KubeApiServer extends BenchServer {
  plane: ControlPlane;
}

export interface KubeApiServerChoice {
  /** etcd fsyncs its log (durable); default off, as the test control plane runs it. */
  etcdFsync?: boolean;
  /** kube-apiserver writes its audit log (default on: the controllers' traffic is read from it). */
  auditLog?: boolean;
}

export async function startKubeApiServer(opts: BenchOptions, label: string, choice: KubeApiServerChoice = {}): Promise<KubeApiServer> {
  const plane = await startControlPlane({ dir: scratchDir(opts, label), ...choice });
  return {
    kind: 'kube-apiserver',
    kubeconfig: plane.kubeconfigPath,
    pids: [plane.apiServerPid, ...(plane.etcdPid === undefined ? [] : [plane.etcdPid])],
    stats: noStats,
    stop: () => plane.stop(),
    plane,
  };
}

export async function startKubeControllerManager(plane: ControlPlane, hostPathProvisioner = false): Promise<RunningControllerProcess> {
  const proc = await plane.startControllerManager({
    syncPeriod: SYNC_PERIOD,
    qps: UNLIMITED_QPS,
    burst: UNLIMITED_QPS,
    hostPathProvisioner,
  });
  let status: string | undefined;
  void proc.exited.then(() => (status = 'exited'));
  return {
    label: 'kube-controller-manager',
    pid: proc.pid,
    logPath: proc.logPath,
    exitStatus: () => status,
    peakRss: () => peakRssBytes(proc.pid),
    stop: () => proc.stop(),
  };
}

/**
 * Removes the directories kube-controller-manager provisioned on this plane and left behind (a
 * canary's, or every one of a run that broke): they live in the machine's /tmp/hostpath_pv, which
 * outlives the plane.
 */
export async function removeKcmHostPathVolumes(plane: ControlPlane): Promise<void> {
  const client = await connect(plane.kubeconfigPath);
  try {
    const res = expectOk(await client.raw('GET', '/api/v1/persistentvolumes'), 'list PVs');
    for (const pv of (JSON.parse(res.body) as { items: PersistentVolume[] }).items) {
      const path = pv.spec.hostPath?.path ?? '';
      if (path.startsWith(KCM_HOST_PATH_ROOT) && !path.includes('..')) rmSync(path, { recursive: true, force: true });
    }
  } finally {
    client.close();
  }
}

/** Runs `work` on a fresh etcd + kube-apiserver, stopped afterwards whatever happens. */
export async function withKubeApiServer<T>(
  opts: BenchOptions,
  label: string,
  work: (server: KubeApiServer) => Promise<T>,
): Promise<T> {
  const server = await startKubeApiServer(opts, label);
  try {
    return await work(server);
  } catch (err) {
    await server.stop();
    throw keepLogs(opts, server.plane, label, err);
  } finally {
    await server.stop();
  }
}

/**
 * Copies the plane's process logs (not the audit log: hundreds of MB) out of the scratch
 * directory, which the bench removes, and names the copy in the error: when kube-controller-
 * manager does not bind, its log says why.
 */
function keepLogs(opts: BenchOptions, plane: ControlPlane, label: string, err: unknown): Error {
  const dir = join(opts.resultsDir, 'logs', `${label}-${fileTimestamp()}`);
  try {
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(plane.dir)) {
      if (name.endsWith('.log') && name !== 'audit.log') copyFileSync(join(plane.dir, name), join(dir, name));
    }
  } catch {
    return err instanceof Error ? err : new Error(String(err));
  }
  const [first, ...rest] = (err instanceof Error ? err.message : String(err)).split('\n');
  return new Error([`${first} (control plane logs kept in ${dir})`, ...rest].join('\n'), { cause: err });
}

/** One controller's requests in a timed window, read from the plane's audit log. */
export function controllerTraffic(server: KubeApiServer, side: keyof typeof USER_AGENT, window: WallWindow): Promise<AuditWindowCounts> {
  return countAuditWindow(server.plane.auditLogPath, { userAgentPrefix: USER_AGENT[side], fromMs: window.from, toMs: window.to });
}
