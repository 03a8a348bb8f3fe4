/**
 * The CSI mock driver as a node plugin a kubelet can use: csi-mock serving its controller,
 * identity and node services on one socket (with --disable-attach, so the kubelet stages and
 * publishes without a VolumeAttachment: no external-attacher here), and csi-registrar announcing
 * it in the kubelet's plugins_registry directory, which is what a driver's node DaemonSet does
 * with node-driver-registrar. Both run in their own process groups, logs in `dir`.
 *
 * What the mock's node service does, precisely (k8s.io/kubernetes
 * test/e2e/storage/drivers/csi-test/mock/service/node.go): NodeStageVolume only records the
 * staging path; NodePublishVolume creates the target directory (mkdir, 0755, its parent must
 * exist: the kubelet makes it) and records it; NodeUnpublishVolume removes that directory and
 * everything in it. Nothing is mounted: the pod's volume is a plain directory on the node's own
 * filesystem, which the kubelet bind-mounts into the container, so the pod can write to it; its
 * contents go when the pod does, and the volume's size is not enforced.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { csiBinaryPath } from './binaries.js';
import { startProcess, waitUntil, type ManagedProcess } from './processes.js';

/** One line of csi-mock's or csi-registrar's call log. */
export interface CallLine {
  time: string;
  method: string;
  request: Record<string, unknown> | null;
  response: Record<string, unknown> | null;
  code: string;
  error: string | null;
}

export interface CsiNodePluginOptions {
  /** Where the sockets (unless given) and logs go; created when missing. */
  dir: string;
  /** The driver's name (GetPluginInfo; also the mock's node ID). */
  driver: string;
  /** The kubelet's plugins_registry directory (`<kubelet root>/plugins_registry`). */
  registrationDir: string;
  /** The driver's socket (default `<dir>/csi.sock`). */
  socket?: string;
  /** More csi-mock switches (tools/k8s/cmd/csi-mock/main.go). */
  mockArgs?: string[];
  /** How long to wait for each process to serve (default 30 s). */
  timeoutMs?: number;
}

export interface CsiNodePlugin {
  driver: string;
  /** The driver's socket, absolute: the controller's --csi-address and the kubelet's endpoint. */
  socket: string;
  /** `<registrationDir>/<driver>-reg.sock`. */
  registrationSocket: string;
  mock: ManagedProcess;
  registrar: ManagedProcess;
  /** The calls csi-mock logged, optionally only those of one method ("/csi.v1.Node/NodePublishVolume"). */
  mockCalls(method?: string): Promise<CallLine[]>;
  /** The registration calls the registrar logged (GetInfo, NotifyRegistrationStatus). */
  registrarCalls(): Promise<CallLine[]>;
  /** Stops the registrar (its socket removed: the kubelet deregisters the driver), then the mock. */
  stop(): Promise<void>;
}

async function callLines(path: string, method?: string): Promise<CallLine[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as CallLine)
    .filter((l) => method === undefined || l.method === method);
}

/** Resolves once the process's log holds `marker`; rejects when it exits first or `timeoutMs` passes. */
function serving(proc: ManagedProcess, marker: string, timeoutMs: number): Promise<void> {
  const log = (): string => (existsSync(proc.logPath) ? readFileSync(proc.logPath, 'utf8') : '');
  return waitUntil(`${proc.name} serving`, async () => log().includes(marker), proc, () => log().slice(-2000), timeoutMs);
}

export async function startCsiNodePlugin(opts: CsiNodePluginOptions): Promise<CsiNodePlugin> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  await mkdir(opts.dir, { recursive: true });
  const socket = resolve(opts.socket ?? join(opts.dir, 'csi.sock'));
  const mockLog = join(opts.dir, 'csi-mock.log');
  const registrarLog = join(opts.dir, 'csi-registrar.log');
  const mockArgs = ['--socket', socket, '--name', opts.driver, '--disable-attach', ...(opts.mockArgs ?? [])];
  const mock = startProcess('csi-mock', csiBinaryPath('csi-mock'), mockArgs, mockLog, opts.dir);
  let registrar: ManagedProcess | undefined;
  try {
    await serving(mock, 'csi-mock: serving', timeoutMs);
    const args = ['--csi-address', socket, '--registration-dir', opts.registrationDir];
    registrar = startProcess('csi-registrar', csiBinaryPath('csi-registrar'), args, registrarLog, opts.dir);
    await serving(registrar, 'csi-registrar: serving', timeoutMs);
  } catch (err) {
    await registrar?.stop();
    await mock.stop();
    throw err;
  }
  const reg = registrar;
  return {
    driver: opts.driver,
    socket,
    registrationSocket: join(opts.registrationDir, `${opts.driver}-reg.sock`),
    mock,
    registrar: reg,
    mockCalls: (method) => callLines(mockLog, method),
    registrarCalls: () => callLines(registrarLog),
    stop: async () => {
      await reg.stop();
      await mock.stop();
    },
  };
}
