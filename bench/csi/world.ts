/**
 * The side-by-side harness: on the real control plane (etcd + kube-apiserver, and
 * kube-controller-manager's volume controllers), Kubernetes' CSI mock driver behind our CSI
 * proxy, and one provisioner under test dialling the proxy, with a StorageClass whose provisioner
 * is the mock's driver name. With external-provisioner, kube-controller-manager's binder does the
 * binding (the sidecar only provisions and deletes); with ours, our controller binds and
 * kube-controller-manager runs only the protection controllers. For CSI migration (issue 26) the
 * mock may carry a migrated driver's name, the class an in-tree provisioner name, our controller
 * may be started without `--csi-address`, and external-provisioner beside it on the same driver.
 * Everything started is stopped by
 * process group, SIGTERM first; `stop` is safe to call from a `finally`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KCM_PV_CONTROLLERS, startControlPlane, type ControlPlane } from '../../tools/cluster/control-plane.js';
import type { ManagedProcess } from '../../tools/cluster/processes.js';
import { CsiProxy } from '../../tools/csi/csi-proxy.js';
import { connect, expectOk, type BenchClient } from '../client/kube-client.js';
import { BENCH_NAMESPACE, namespaceObject } from '../fixtures.js';
import { logTail } from '../proc/child.js';
import { UNLIMITED_QPS } from '../proc/controller.js';
import type { ProvisionerKind } from './binaries.js';
import { MOCK_DRIVER_NAME, startMockDriver, type MockDriver } from './mock-driver.js';
import { startProvisioner, type ProvisionerSpec, type RunningProvisioner } from './provisioner.js';

/** The StorageClass every claim of a CSI run names. */
export const CSI_CLASS = 'csi-mock';

const PROTECTION_CONTROLLERS = ['persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller'];

export interface CsiWorldOptions {
  provisioner: ProvisionerKind;
  /** Scratch directory for the control plane's files and the processes' logs. */
  dir: string;
  /** Also start csi-resizer (external-provisioner side). */
  resizer?: boolean;
  /** Workers of the provisioner under test (default 16). */
  workers?: number;
  /** Extra flags of csi-mock (`--node-expansion-required`, ...). */
  mockArgs?: string[];
  /** An etcd to use instead of starting one (test:cluster shares one per run). */
  etcdUrl?: string;
  /**
   * Run our controller as deploy/rbac.yaml's ServiceAccount instead of the admin (test:cluster
   * checks that account's requests in the audit log: none may be denied). The bench gives both
   * provisioners the admin identity, as the other side-by-side runs do.
   */
  controllerServiceAccount?: boolean;
  /** The control plane's directory (default `<dir>/plane`). */
  planeDir?: string;
  /** The name the mock driver is started with (default MOCK_DRIVER_NAME). */
  driverName?: string;
  /** The class's provisioner (default the driver's name; an in-tree name such as `kubernetes.io/aws-ebs` for migration). */
  classProvisioner?: string;
  /** The provisioner under test's own settings: whether ours drives the driver, further flags and environment. */
  under?: Pick<ProvisionerSpec, 'drivesCsi' | 'extraArgs' | 'env'>;
  /** Also start external-provisioner (as the admin) on the same driver, beside the provisioner under test. */
  sidecarBeside?: Pick<ProvisionerSpec, 'extraArgs'>;
  /** Runs once the namespace and class exist, before the driver and the provisioner start (e.g. CRDs they list at start). */
  prepare?: (client: BenchClient, plane: ControlPlane) => Promise<void>;
}

export interface CsiWorld {
  kind: ProvisionerKind;
  plane: ControlPlane;
  kcm: ManagedProcess;
  driver: MockDriver;
  proxy: CsiProxy;
  client: BenchClient;
  provisioner(): RunningProvisioner;
  /** external-provisioner beside the provisioner under test, when `sidecarBeside` asked for it. */
  sidecar?: RunningProvisioner;
  /** Stops the world's processes with this (last in, first out), e.g. peers started beside it. */
  onStop(stop: () => Promise<void>): void;
  /** Throws (with the log's tail) once a process under test has exited on its own. */
  checkAlive(): void;
  /** SIGKILL to the provisioning process, then a fresh one; csi-resizer keeps running. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

function csiClass(provisioner: string): Record<string, unknown> {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: CSI_CLASS },
    provisioner,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  };
}

async function createObjects(client: BenchClient, classProvisioner: string): Promise<void> {
  expectOk(await client.raw('POST', '/api/v1/namespaces', JSON.stringify(namespaceObject())), 'create the bench namespace');
  expectOk(await client.raw('POST', '/apis/storage.k8s.io/v1/storageclasses', JSON.stringify(csiClass(classProvisioner))), 'create the CSI StorageClass');
}

export async function startCsiWorld(opts: CsiWorldOptions): Promise<CsiWorld> {
  mkdirSync(opts.dir, { recursive: true });
  // Unix socket paths are limited to ~107 bytes: the sockets live in a short directory of their own.
  const socketDir = mkdtempSync(join(tmpdir(), 'csi-'));
  const stops: Array<() => Promise<void>> = [async () => rmSync(socketDir, { recursive: true, force: true })];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  const driverName = opts.driverName ?? MOCK_DRIVER_NAME;
  const oursDrivesCsi = opts.provisioner === 'pv-controller' && opts.under?.drivesCsi !== false;
  try {
    const plane = await startControlPlane({
      dir: opts.planeDir ?? join(opts.dir, 'plane'),
      etcdUrl: opts.etcdUrl,
      controllerServiceAccount: opts.controllerServiceAccount,
      // Ours drives the driver: the chart's roles for csi.drivers (deploy/rbac-csi.yaml).
      ...(oursDrivesCsi ? { controllerRbac: 'rbac-csi.yaml' } : {}),
    });
    stops.push(() => plane.stop());
    const kcm = await plane.startControllerManager({
      controllers: opts.provisioner === 'external-provisioner' ? KCM_PV_CONTROLLERS : PROTECTION_CONTROLLERS,
      qps: UNLIMITED_QPS,
      burst: UNLIMITED_QPS,
    });
    const client = await connect(plane.kubeconfigPath);
    stops.push(async () => client.close());
    await createObjects(client, opts.classProvisioner ?? driverName);
    await opts.prepare?.(client, plane);
    const driver = await startMockDriver(socketDir, opts.mockArgs, driverName);
    stops.push(() => driver.stop());
    const proxy = await CsiProxy.start({ listen: join(socketDir, 'proxy.sock'), driver: driver.socket });
    stops.push(() => proxy.stop());
    const spec: ProvisionerSpec = {
      kind: opts.provisioner,
      kubeconfig: (opts.controllerServiceAccount && plane.controllerKubeconfigPath) || plane.kubeconfigPath,
      csiAddress: proxy.address,
      dir: opts.dir,
      resizer: opts.resizer ?? false,
      workers: opts.workers ?? 16,
      ...opts.under,
    };
    let running = startProvisioner(spec);
    stops.push(() => running.stop());
    const sidecar = opts.sidecarBeside && startProvisioner({ ...spec, kind: 'external-provisioner', kubeconfig: plane.kubeconfigPath, resizer: false, env: undefined, extraArgs: undefined, ...opts.sidecarBeside });
    if (sidecar) stops.push(() => sidecar.stop());
    const watched = (): ManagedProcess[] => [kcm, driver.proc, running.provisioner, ...(running.resizer ? [running.resizer] : []), ...(sidecar ? [sidecar.provisioner] : [])];
    const exited = new Set<ManagedProcess>();
    const track = (p: ManagedProcess): void => void p.exited.then(() => exited.add(p));
    watched().forEach(track);
    return {
      kind: opts.provisioner,
      plane,
      kcm,
      driver,
      proxy,
      client,
      provisioner: () => running,
      ...(sidecar ? { sidecar } : {}),
      onStop(stop) {
        stops.push(stop);
      },
      checkAlive() {
        const dead = watched().find((p) => exited.has(p));
        if (dead) throw new Error(`${dead.name} exited:\n${logTail(dead.logPath, 25)}`);
      },
      async crashAndRestart() {
        await running.crash();
        running = startProvisioner(spec, running.resizer);
        track(running.provisioner);
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The bench namespace's claims path, for the scenarios. */
export const CLAIMS_PATH = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
