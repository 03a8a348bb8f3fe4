/**
 * The CSI part of a chaos run: a CSI driver in its own process (Kubernetes' CSI mock where
 * `npm run csi:build` built it, else our fake driver as a process), started before the
 * controllers and stopped after them, so its volumes outlive every controller kill and are what
 * the `csi-volumes` invariant checks; and the CSI fault proxy (tools/csi) in front of it, the
 * only address the controllers are given. The run asks the driver itself, not the proxy, which
 * volumes it holds (ListVolumes), and learns from each volume's context which claim it was made
 * for: the mock puts the CreateVolume name there, the fake the request's parameters (the
 * `csi.storage.k8s.io/pv/name` extra-create-metadata).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSI_PARAM_PV_NAME } from '@pv-controller/kube/annotations.js';
import { connectCsi } from '../../src/csi/client.js';
import { csiBinaryPath } from '../cluster/binaries.js';
import { startProcess, waitUntil, type ManagedProcess } from '../cluster/processes.js';
import { CsiProxy } from '../csi/csi-proxy.js';
import type { DriverSnapshot } from './csi-snapshot-invariant.js';
import { killGroup } from './processes.js';

export type CsiDriverKind = 'mock' | 'fake';

/** The driver name both drivers are started with: the provisioner of the chaos-csi classes. */
export const CSI_DRIVER_NAME = 'chaos.csi.pv-controller.io';

const FAKE_DRIVER_MAIN = fileURLToPath(new URL('../../test/csi/fake-driver-main.js', import.meta.url));

/** One volume the driver holds, and the uid of the claim it was made for when its context says. */
export interface DriverVolume {
  id: string;
  claimUid?: string;
  /** Where the claim uid was read from (the CreateVolume name or the pv/name parameter). */
  name?: string;
}

/** The mock where it is built (a driver no one here wrote), else the fake driver as a process. */
export function defaultCsiDriver(): CsiDriverKind {
  return existsSync(csiBinaryPath('csi-mock')) ? 'mock' : 'fake';
}

/** Why `kind` cannot run here, or undefined. */
export function csiDriverUnavailable(kind: CsiDriverKind): string | undefined {
  if (kind === 'mock' && !existsSync(csiBinaryPath('csi-mock'))) return `the CSI mock is not built (${csiBinaryPath('csi-mock')}): run npm run csi:build`;
  return undefined;
}

const PVC_UID = /pvc-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/** The claim uid a driver volume's context names: the mock's `name` (the CreateVolume name) or the fake's `csi.storage.k8s.io/pv/name`. */
export function claimOfVolumeContext(context: Record<string, string>): { claimUid?: string; name?: string } {
  const name = context.name ?? context[CSI_PARAM_PV_NAME];
  const uid = name === undefined ? undefined : PVC_UID.exec(name)?.[1];
  return { ...(name !== undefined ? { name } : {}), ...(uid !== undefined ? { claimUid: uid } : {}) };
}

/** Volumes the driver made, by CreateVolume name: from the mock's call log (one JSON line a call). */
export function volumesMadeByName(log: string): Map<string, Set<string>> {
  const made = new Map<string, Set<string>>();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes('/CreateVolume"')) continue;
    let call: { code?: string; request?: { name?: string }; response?: { volume?: { volumeId?: string } } | null };
    try {
      call = JSON.parse(line) as typeof call;
    } catch {
      continue;
    }
    const id = call.response?.volume?.volumeId;
    const name = call.request?.name;
    if (call.code !== 'OK' || id === undefined || name === undefined) continue;
    made.set(name, (made.get(name) ?? new Set()).add(id));
  }
  return made;
}

/** Driver snapshot id → the CreateSnapshot name that made it: from the mock's call log (OK answers only). */
export function snapshotsMadeByName(log: string): Map<string, string> {
  const made = new Map<string, string>();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes('/CreateSnapshot"')) continue;
    let call: { code?: string; request?: { name?: string }; response?: { snapshot?: { snapshotId?: string } } | null };
    try {
      call = JSON.parse(line) as typeof call;
    } catch {
      continue;
    }
    const id = call.response?.snapshot?.snapshotId;
    const name = call.request?.name;
    if (call.code === 'OK' && id !== undefined && name !== undefined && !made.has(id)) made.set(id, name);
  }
  return made;
}

/** Every snapshot a CSI driver holds (ListSnapshots, page by page), named from `names` where known. */
export async function listDriverSnapshots(socket: string, names: ReadonlyMap<string, string> = new Map()): Promise<DriverSnapshot[]> {
  const conn = await connectCsi(socket, { timeoutMs: 15_000 });
  try {
    const out: DriverSnapshot[] = [];
    let token = '';
    do {
      const page = await conn.controller.listSnapshots({ maxEntries: 500, ...(token ? { startingToken: token } : {}) });
      for (const e of page.entries) {
        const name = names.get(e.snapshotId);
        out.push({ id: e.snapshotId, sourceVolumeId: e.sourceVolumeId, ...(name !== undefined ? { name } : {}) });
      }
      token = page.nextToken;
    } while (token !== '');
    return out;
  } finally {
    conn.close();
  }
}

function driverCommand(kind: CsiDriverKind, socket: string): { bin: string; args: string[] } {
  if (kind === 'mock') return { bin: csiBinaryPath('csi-mock'), args: ['--socket', socket, '--name', CSI_DRIVER_NAME] };
  return { bin: process.execPath, args: [FAKE_DRIVER_MAIN, socket, '--name', CSI_DRIVER_NAME, '--quiet'] };
}

export class ChaosCsi {
  private constructor(
    readonly kind: CsiDriverKind,
    private readonly proc: ManagedProcess,
    readonly proxy: CsiProxy,
    private readonly driverSocket: string,
    private readonly socketDir: string,
    private readonly logPath: string,
  ) {}

  /** Starts the driver (its log in `logDir`) and the proxy in front of it, in a short directory of their own (a unix socket path has ~107 bytes). */
  static async start(kind: CsiDriverKind, logDir: string): Promise<ChaosCsi> {
    const unavailable = csiDriverUnavailable(kind);
    if (unavailable) throw new Error(unavailable);
    const socketDir = await mkdtemp(join(tmpdir(), 'chaos-csi-'));
    const socket = join(socketDir, 'driver.sock');
    const { bin, args } = driverCommand(kind, socket);
    const logPath = join(logDir, `csi-${kind}.log`);
    const proc = startProcess(`csi-${kind}`, bin, args, logPath, logDir);
    try {
      await waitUntil(`the CSI ${kind} driver to listen`, async () => existsSync(socket), proc, () => '', 60_000);
      const proxy = await CsiProxy.start({ listen: join(socketDir, 'proxy.sock'), driver: socket });
      return new ChaosCsi(kind, proc, proxy, socket, socketDir, logPath);
    } catch (err) {
      await killGroup(proc);
      await rm(socketDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** The socket the controllers dial: the proxy's. */
  get address(): string {
    return this.proxy.address;
  }

  /** The driver's volumes, straight from the driver (never through the proxy's faults). */
  async volumes(): Promise<DriverVolume[]> {
    const conn = await connectCsi(this.driverSocket, { timeoutMs: 15_000 });
    try {
      const out: DriverVolume[] = [];
      let token = '';
      do {
        const page = await conn.controller.listVolumes({ maxEntries: 500, ...(token ? { startingToken: token } : {}) });
        for (const e of page.entries) out.push({ id: e.volume.volumeId, ...claimOfVolumeContext(e.volume.volumeContext) });
        token = page.nextToken;
      } while (token !== '');
      return out;
    } finally {
      conn.close();
    }
  }

  /**
   * The driver's snapshots, straight from the driver (ListSnapshots, never through the proxy),
   * each with the CreateSnapshot name that made it where the mock's log says.
   */
  async snapshots(): Promise<DriverSnapshot[]> {
    const names = this.kind === 'mock' ? snapshotsMadeByName(await readFile(this.logPath, 'utf8')) : new Map<string, string>();
    return listDriverSnapshots(this.driverSocket, names);
  }

  /**
   * How many volumes the driver made, and the CreateVolume names that made more than one (each
   * a volume made again for one claim): the mock's log says; undefined for the fake (it logs no answers).
   */
  async volumesMade(): Promise<{ volumes: number; namesWithSeveral: Record<string, number> } | undefined> {
    if (this.kind !== 'mock') return undefined;
    const made = volumesMadeByName(await readFile(this.logPath, 'utf8'));
    const several = [...made].filter(([, ids]) => ids.size > 1).map(([name, ids]) => [name, ids.size] as const);
    return { volumes: [...made.values()].reduce((n, ids) => n + ids.size, 0), namesWithSeveral: Object.fromEntries(several) };
  }

  /** Stops the proxy, then the driver (SIGTERM, then SIGKILL), and removes the sockets. Safe to call twice. */
  async stop(): Promise<void> {
    await this.proxy.stop();
    await this.proc.stop();
    await rm(this.socketDir, { recursive: true, force: true });
  }
}
