/**
 * The provisioner under test, pointed at the CSI proxy's socket: the real sidecars
 * (csi-provisioner, and csi-resizer for expansion) or our controller (`pv-controller controller
 * --csi-address`). Each process runs in its own process group; a crash is SIGKILL to that group,
 * a stop SIGTERM first (tools/cluster/processes.ts).
 */
import { join } from 'node:path';
import { startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { cliPath } from '../paths.js';
import { hasFlag, UNLIMITED_QPS } from '../proc/controller.js';
import { csiBinaryPath } from '../../tools/cluster/binaries.js';
import type { ProvisionerKind } from './binaries.js';

export interface ProvisionerSpec {
  kind: ProvisionerKind;
  kubeconfig: string;
  /** The socket the provisioner dials (the proxy's). */
  csiAddress: string;
  /** Where logs go. */
  dir: string;
  /** Start csi-resizer beside csi-provisioner (ours expands in the same process). */
  resizer: boolean;
  /** Workers of each (csi-provisioner --worker-threads, csi-resizer --workers, ours --concurrent-syncs). */
  workers: number;
  /** Ours only: give it `--csi-address` (default true; false where it must not drive the driver). */
  drivesCsi?: boolean;
  /** Further flags of the provisioner (csi-provisioner's or our controller's). */
  extraArgs?: string[];
  /** Further environment of the provisioner's process (e.g. AWS_ENDPOINT_URL_EC2 for ours). */
  env?: Record<string, string>;
}

export interface RunningProvisioner {
  kind: ProvisionerKind;
  /** The process that provisions (csi-provisioner, or ours). */
  provisioner: ManagedProcess;
  /** csi-resizer, when started; ours expands in `provisioner`. */
  resizer?: ManagedProcess;
  /** The process that expands. */
  expander(): ManagedProcess;
  /** SIGKILL to the provisioning process's group, as a crash; resolves once it exited. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

let starts = 0;

function sidecarArgs(spec: ProvisionerSpec): string[] {
  return [
    `--csi-address=${spec.csiAddress}`,
    `--kubeconfig=${spec.kubeconfig}`,
    '--leader-election=false',
    // The sidecars' client-side limit (5 QPS, burst 10) would measure the limiter: lifted, as for KCM and ours.
    `--kube-api-qps=${UNLIMITED_QPS}`,
    `--kube-api-burst=${UNLIMITED_QPS}`,
  ];
}

/** Our controller's flags, each only where its --help lists it (the lead's wiring decides some). */
export function ourControllerArgs(spec: ProvisionerSpec): string[] {
  const args = ['controller', '--kubeconfig', spec.kubeconfig, ...(spec.drivesCsi === false ? [] : ['--csi-address', spec.csiAddress])];
  const optional: Array<[string, string[]]> = [
    ['--leader-elect', ['--leader-elect=false']],
    ['--kube-api-qps', ['--kube-api-qps', String(UNLIMITED_QPS)]],
    ['--kube-api-burst', ['--kube-api-burst', String(UNLIMITED_QPS)]],
    ['--concurrent-syncs', ['--concurrent-syncs', String(spec.workers)]],
    ['--metrics-bind-address', ['--metrics-bind-address', '127.0.0.1:0']],
  ];
  for (const [flag, extra] of optional) if (hasFlag('controller', flag)) args.push(...extra);
  return [...args, ...(spec.extraArgs ?? [])];
}

function startSidecars(spec: ProvisionerSpec, n: number): { provisioner: ManagedProcess; resizer?: ManagedProcess } {
  const provisioner = startProcess('csi-provisioner', csiBinaryPath('csi-provisioner'), [
    ...sidecarArgs(spec),
    '--extra-create-metadata',
    `--worker-threads=${spec.workers}`,
    ...(spec.extraArgs ?? []),
  ], join(spec.dir, `csi-provisioner-${n}.log`), spec.dir, spec.env);
  if (!spec.resizer) return { provisioner };
  const resizer = startProcess('csi-resizer', csiBinaryPath('csi-resizer'), [...sidecarArgs(spec), `--workers=${spec.workers}`], join(spec.dir, `csi-resizer-${n}.log`), spec.dir);
  return { provisioner, resizer };
}

/** Starts the provisioner under test (a restart keeps csi-resizer when one runs already). */
export function startProvisioner(spec: ProvisionerSpec, keepResizer?: ManagedProcess): RunningProvisioner {
  const n = ++starts;
  let procs: { provisioner: ManagedProcess; resizer?: ManagedProcess };
  if (spec.kind === 'external-provisioner') {
    procs = keepResizer ? { provisioner: startSidecars({ ...spec, resizer: false }, n).provisioner, resizer: keepResizer } : startSidecars(spec, n);
  } else {
    procs = { provisioner: startProcess('pv-controller', process.execPath, [...(process.env.PV_BENCH_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PV_BENCH_PROF_DIR}`] : []), cliPath(), ...ourControllerArgs(spec)], join(spec.dir, `pv-controller-${n}.log`), spec.dir, spec.env) };
  }
  const { provisioner, resizer } = procs;
  return {
    kind: spec.kind,
    provisioner,
    resizer,
    expander: () => resizer ?? provisioner,
    async crash() {
      try {
        process.kill(-provisioner.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      await provisioner.exited;
    },
    async stop() {
      await Promise.all([provisioner.stop(), resizer?.stop()]);
    },
  };
}
