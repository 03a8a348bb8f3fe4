/**
 * The snapshot world: bench/csi's CSI world (the real control plane, Kubernetes' CSI mock behind
 * the CSI proxy, a provisioner under test) with the snapshot.storage.k8s.io CRDs installed (the
 * generated ones the embedded server serves, as an admin installs external-snapshotter's), two
 * VolumeSnapshotClasses of the mock's driver, and either side's snapshot controllers:
 * - upstream: csi-provisioner (restore and clone), external-snapshotter's snapshot-controller and
 *   its csi-snapshotter sidecar, with the flags a real deployment gives them
 *   (`--extra-create-metadata`, leader election off: each runs alone here), and
 *   kube-controller-manager's binder and protection controllers;
 * - pv-controller: `pv-controller controller --csi-address`, whose `--controllers` must list the
 *   snapshot controller, and kube-controller-manager's protection controllers.
 * Everything started is stopped with the world (process groups, SIGTERM first).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ANN_DEFAULT_SNAPSHOT_CLASS, SNAPSHOT_API_VERSION } from '@pv-controller/kube/snapshot-types.js';
import { binDir, csiBinaryPath, isExecutable, REPO_ROOT } from '../../tools/cluster/binaries.js';
import { startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { logTail } from '../proc/child.js';
import { commandHelp, UNLIMITED_QPS } from '../proc/controller.js';
import { csiPeersUnavailable } from './binaries.js';
import { MOCK_DRIVER_NAME } from './mock-driver.js';
import { startCsiWorld, type CsiWorld } from './world.js';

/** The two sides compared: the real snapshotter and provisioner, or our controller. */
export const SNAPSHOT_SIDES = ['upstream', 'pv-controller'] as const;
export type SnapshotSide = (typeof SNAPSHOT_SIDES)[number];

/** The mock driver's default VolumeSnapshotClass (deletionPolicy Delete). */
export const DEFAULT_SNAPSHOT_CLASS = 'csi-mock-snapshots';
/** A second class of the driver, named by the scenarios that name one (deletionPolicy Retain). */
export const RETAIN_SNAPSHOT_CLASS = 'csi-mock-snapshots-retain';

const CRDS_FILE = join(REPO_ROOT, 'packages', 'apiserver', 'src', 'crds', 'snapshot.storage.k8s.io.json');
const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CLASSES_PATH = `/apis/${SNAPSHOT_API_VERSION}/volumesnapshotclasses`;

/** Whether this checkout's `pv-controller controller --controllers` names a snapshot controller. */
export function ourSnapshotControllerListed(): boolean {
  const line = commandHelp('controller').split('\n').find((l) => l.includes('--controllers')) ?? '';
  return /[\s,]snapshot[\s,]/.test(line.replace(/[,)]/g, ' , '));
}

/** Why `side` cannot run here (a missing binary, or our controller without its snapshot module), or undefined. */
export function snapshotPeersUnavailable(side: SnapshotSide): string | undefined {
  const csi = csiPeersUnavailable(side === 'upstream' ? 'external-provisioner' : 'pv-controller');
  if (csi) return csi;
  if (side === 'upstream') {
    const missing = (['snapshot-controller', 'csi-snapshotter'] as const).filter((n) => !isExecutable(csiBinaryPath(n)));
    return missing.length > 0 ? `external-snapshotter is not built (missing ${missing.join(', ')} in ${binDir()}): run npm run csi:build` : undefined;
  }
  return ourSnapshotControllerListed()
    ? undefined
    : '`pv-controller controller --help` does not list the snapshot controller in --controllers yet (the snapshot module has not landed in this checkout)';
}

interface Crd {
  metadata: { name: string };
}

async function installSnapshotCrds(client: BenchClient): Promise<void> {
  const list = JSON.parse(await readFile(CRDS_FILE, 'utf8')) as { items: Crd[] };
  for (const crd of list.items) {
    const answer = await client.raw('POST', CRDS_PATH, JSON.stringify(crd));
    if (answer.status !== 409) expectOk(answer, `create CRD ${crd.metadata.name}`);
  }
  const deadline = Date.now() + 60_000;
  for (const crd of list.items) {
    for (;;) {
      const got = await client.raw('GET', `${CRDS_PATH}/${crd.metadata.name}`);
      const conditions = (JSON.parse(got.body) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not Established within 60 s`);
      await sleep(200);
    }
  }
}

function snapshotClass(name: string, deletionPolicy: 'Delete' | 'Retain', isDefault: boolean): Record<string, unknown> {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotClass',
    metadata: { name, ...(isDefault ? { annotations: { [ANN_DEFAULT_SNAPSHOT_CLASS]: 'true' } } : {}) },
    driver: MOCK_DRIVER_NAME,
    deletionPolicy,
  };
}

/** The CRDs, then the two classes: the kinds exist before any controller lists them. */
async function prepareSnapshots(client: BenchClient): Promise<void> {
  await installSnapshotCrds(client);
  expectOk(await client.raw('POST', CLASSES_PATH, JSON.stringify(snapshotClass(DEFAULT_SNAPSHOT_CLASS, 'Delete', true))), 'create the default VolumeSnapshotClass');
  expectOk(await client.raw('POST', CLASSES_PATH, JSON.stringify(snapshotClass(RETAIN_SNAPSHOT_CLASS, 'Retain', false))), 'create the Retain VolumeSnapshotClass');
}

/** external-snapshotter's two processes, as a deployment runs them (one replica each, so no election). */
function startUpstreamSnapshotter(world: CsiWorld, dir: string, kubeconfig: string): ManagedProcess[] {
  const common = [`--kubeconfig=${kubeconfig}`, '--leader-election=false', `--kube-api-qps=${UNLIMITED_QPS}`, `--kube-api-burst=${UNLIMITED_QPS}`];
  const controller = startProcess('snapshot-controller', csiBinaryPath('snapshot-controller'), [
    ...common,
    // The group snapshot CRDs are not installed: it looks for them (backing off up to this long),
    // then runs without group snapshots. The gate (CSIVolumeGroupSnapshot) is GA and cannot be turned off.
    '--retry-crd-interval-max=4s',
  ], join(dir, 'snapshot-controller.log'), dir);
  const sidecar = startProcess('csi-snapshotter', csiBinaryPath('csi-snapshotter'), [
    ...common,
    `--csi-address=${world.proxy.address}`,
    '--extra-create-metadata',
  ], join(dir, 'csi-snapshotter.log'), dir);
  return [controller, sidecar];
}

export interface SnapshotWorldOptions {
  side: SnapshotSide;
  dir: string;
  etcdUrl?: string;
  /** Further flags of our controller (the pv-controller side). */
  ourArgs?: string[];
}

export interface SnapshotWorld {
  side: SnapshotSide;
  csi: CsiWorld;
  /** The upstream side's snapshot-controller and csi-snapshotter (none on ours: it is one process). */
  snapshotters: ManagedProcess[];
  /** Throws (with a log tail) once a process of the world has exited on its own. */
  checkAlive(): void;
  stop(): Promise<void>;
}

export async function startSnapshotWorld(opts: SnapshotWorldOptions): Promise<SnapshotWorld> {
  const csi = await startCsiWorld({
    provisioner: opts.side === 'upstream' ? 'external-provisioner' : 'pv-controller',
    dir: opts.dir,
    etcdUrl: opts.etcdUrl,
    prepare: prepareSnapshots,
    ...(opts.side === 'pv-controller' && opts.ourArgs ? { under: { extraArgs: opts.ourArgs } } : {}),
  });
  let snapshotters: ManagedProcess[] = [];
  try {
    if (opts.side === 'upstream') {
      snapshotters = startUpstreamSnapshotter(csi, opts.dir, csi.plane.kubeconfigPath);
      for (const p of snapshotters) csi.onStop(() => p.stop());
    }
  } catch (err) {
    await csi.stop();
    throw err;
  }
  const exited = new Set<ManagedProcess>();
  for (const p of snapshotters) void p.exited.then(() => exited.add(p));
  return {
    side: opts.side,
    csi,
    snapshotters,
    checkAlive() {
      csi.checkAlive();
      const dead = snapshotters.find((p) => exited.has(p));
      if (dead) throw new Error(`${dead.name} exited:\n${logTail(dead.logPath, 25)}`);
    },
    stop: () => csi.stop(),
  };
}
