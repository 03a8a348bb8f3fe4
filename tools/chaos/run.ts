/**
 * One chaos run: the API server (the embedded one on SQLite, started here, or a real control
 * plane given by kubeconfig), the EC2 emulator, the CSI driver behind its fault proxy, the fault
 * proxy, the controllers behind it; the
 * world, then the workload and the disruptor side by side until the workload created its
 * claims (or the duration ran out); then settle, check the invariants, and write the record.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../src/kube-client/kubeconfig.js';
import { Ec2Emulator } from '../../test/emulators/ec2.js';
import { AWS_CREDENTIALS } from '../../test/integration/cloud-helpers.js';
import { ChaosCsi, CSI_DRIVER_NAME, type CsiDriverKind } from './csi.js';
import { CsiDisruptions } from './csi-faults.js';
import { grantControllerCsiAccess } from './csi-rbac.js';
import { createSnapshotClass, listSnapshotObjects, SnapshotWorkload } from './snapshot-workload.js';
import { Disruptor } from './disruptor.js';
import { RecordingClient } from './history.js';
import { checkInvariants, observe, type InvariantReport, type ObservedState } from './invariants.js';
import { ControllerFleet, EmbeddedApiServer } from './processes.js';
import { Prng } from './prng.js';
import { FaultProxy } from './proxy.js';
import { progressLine, type ChaosRecord } from './report.js';
import { settle } from './settle.js';
import { Workload } from './workload.js';
import { createWorld, type Decoy } from './world.js';

export interface ChaosOptions {
  claims: number;
  seed: number;
  /** A real control plane's admin kubeconfig; without it the embedded server runs (and is killed). */
  kubeconfig?: string;
  /** The credentials the controllers reach that control plane with, through the proxy (default: kubeconfig's). */
  controllerKubeconfig?: string;
  /** The workload stops after this long even when it has not created all its claims. */
  durationMs: number;
  /** Working directory (volumes, decoys, logs, the API server's data, the record). */
  dir: string;
  workers: number;
  /** Workload operations per second, all workers together. */
  opsPerSecond: number;
  apiFaultRate: number;
  /** The CSI driver behind the CSI fault proxy ('none': no CSI class in the run). */
  csiDriver: CsiDriverKind | 'none';
  /** The snapshot part of the workload and the csi-snapshots invariant (needs a CSI driver). */
  snapshots?: boolean;
  settleTimeoutMs: number;
  /** Where the JSON record goes (default DIR/chaos-<seed>.json). */
  out?: string;
  /** Keep DIR after a run without violations (a failing run always keeps it). */
  keep: boolean;
  log(line: string): void;
}

interface Parts {
  apiServer: EmbeddedApiServer | undefined;
  kc: KubeConfig;
  ec2: Ec2Emulator;
  proxy: FaultProxy;
  csi: ChaosCsi | undefined;
  client: RecordingClient;
  fleet: ControllerFleet;
}

async function startParts(o: ChaosOptions, startedAt: number): Promise<Parts> {
  const logDir = join(o.dir, 'logs');
  await mkdir(logDir, { recursive: true });
  await mkdir(join(o.dir, 'volumes'), { recursive: true });
  const apiServer = o.kubeconfig ? undefined : await EmbeddedApiServer.start(join(o.dir, 'api'), logDir);
  const kc = loadKubeConfig(o.kubeconfig ?? apiServer!.kubeconfigPath);
  const ec2 = new Ec2Emulator();
  await ec2.start();
  const upstream = o.controllerKubeconfig ? loadKubeConfig(o.controllerKubeconfig) : kc;
  const proxy = await FaultProxy.start({ dir: join(o.dir, 'proxy'), upstream, holdMs: 40_000 });
  // Started before the controllers and stopped after them: its volumes outlive every kill.
  const csi = o.csiDriver === 'none' ? undefined : await ChaosCsi.start(o.csiDriver, logDir);
  const cloudEnv = {
    AWS_ENDPOINT_URL_EC2: ec2.url,
    AWS_REGION: ec2.region,
    AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS_CREDENTIALS.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const fleet = new ControllerFleet({ kubeconfig: proxy.kubeconfigPath, hostPathRoot: join(o.dir, 'volumes'), logDir, cloudEnv, ...(csi ? { csiAddress: csi.address } : {}) });
  return { apiServer, kc, ec2, proxy, csi, client: new RecordingClient(kc, startedAt), fleet };
}

async function stopParts(p: Parts): Promise<void> {
  await p.fleet.stopAll();
  await p.csi?.stop();
  await p.proxy.stop();
  p.client.close();
  await p.apiServer?.stop();
  await p.ec2.stop();
}

interface ChaosPhase {
  decoys: Decoy[];
  workload: Workload;
  disruptor: Disruptor;
  csiDisruptions: CsiDisruptions | undefined;
  /** Figures taken when the chaos stopped, before settling. */
  cloudFaults: Record<string, number>;
  requests: number;
  chaosMs: number;
}

/** The world, then the workload and the disruptor side by side until the workload is done. */
async function runChaosPhase(o: ChaosOptions, p: Parts, startedAt: number): Promise<ChaosPhase> {
  const prng = new Prng(o.seed);
  const root = join(o.dir, 'volumes');
  // On a real control plane the controllers' own account needs what the chart grants with a CSI driver.
  if (p.csi && o.controllerKubeconfig) await grantControllerCsiAccess(p.client);
  const decoys = await createWorld(p.client, root, join(o.dir, 'decoys'), o.seed, o.workers, p.csi !== undefined);
  const snapshots = o.snapshots && p.csi ? new SnapshotWorkload(p.client) : undefined;
  if (snapshots) await createSnapshotClass(p.client);
  const workload = new Workload(p.client, root, decoys, o.claims, p.csi !== undefined, snapshots);
  const csi = p.csi ? new CsiDisruptions(p.csi, p.client, () => p.fleet.crashAll(), o.log) : undefined;
  const disruptor = new Disruptor({ fleet: p.fleet, apiServer: p.apiServer, proxy: p.proxy, ec2: p.ec2, ...(csi ? { csi } : {}), random: prng.fork('disruptor'), apiFaultRate: o.apiFaultRate, log: o.log });
  p.fleet.start(true);
  let workloadDone = false;
  const counters = { workload, disruptor, fleet: p.fleet, proxy: p.proxy, apiServer: p.apiServer, target: o.claims, startedAt };
  const progress = setInterval(() => o.log(progressLine(counters)), 10_000);
  const deadline = startedAt + o.durationMs;
  try {
    await Promise.all([
      workload.run(prng.fork('workload'), o.workers, o.opsPerSecond, () => Date.now() > deadline).finally(() => (workloadDone = true)),
      disruptor.run(() => workloadDone),
    ]);
  } finally {
    clearInterval(progress);
  }
  o.log(progressLine(counters));
  return { decoys, workload, disruptor, csiDisruptions: csi, cloudFaults: disruptor.cloudFaultsFired(), requests: p.proxy.requests, chaosMs: Date.now() - startedAt };
}

interface RunEnd {
  state: ObservedState;
  invariants: InvariantReport;
  settled: boolean;
  inFlight: string[];
  totalMs: number;
  csi: ChaosRecord['csi'];
}

function chaosRecord(o: ChaosOptions, p: Parts, c: ChaosPhase, end: RunEnd): ChaosRecord {
  const { claims, volumes } = end.state;
  return {
    seed: o.seed,
    server: o.kubeconfig ? 'real' : 'embedded',
    targetClaims: o.claims,
    claimsCreated: c.workload.claimsCreated,
    claimsByKind: c.workload.claimsByKind,
    claimsAtEnd: Object.fromEntries(['Bound', 'Pending', 'Lost'].map((ph) => [ph, claims.filter((cl) => (cl.status?.phase ?? 'Pending') === ph).length])),
    volumesAtEnd: volumes.length,
    failedVolumes: volumes.filter((v) => v.status?.phase === 'Failed').map((v) => `${v.metadata.name ?? ''}: ${v.status?.message ?? ''}`),
    controllerKills: p.fleet.kills,
    controllerLeaseLosses: p.fleet.selfExits,
    apiServerKills: p.apiServer?.kills ?? 0,
    twoControllerStretches: c.disruptor.twoControllerStretches,
    unelectedStretches: c.disruptor.unelectedStretches,
    apiFaultBursts: c.disruptor.apiFaultBursts,
    apiRequestsThroughProxy: c.requests,
    apiFaults: Object.fromEntries(p.proxy.counts),
    cloudFaults: c.cloudFaults,
    workloadRequests: p.client.entries.length,
    chaosMs: c.chaosMs,
    settled: end.settled,
    stillInFlight: end.inFlight,
    totalMs: end.totalMs,
    invariants: end.invariants,
    ...(end.csi ? { csi: end.csi } : {}),
    dir: o.dir,
    historyFile: `${recordPath(o)}.history.json`,
  };
}

async function csiFigures(csi: ChaosCsi, c: ChaosPhase, state: ObservedState): Promise<NonNullable<ChaosRecord['csi']>> {
  const made = await csi.volumesMade();
  const driverVolumes = state.driverVolumes?.length ?? 0;
  const ops = c.workload.snapshots?.counts;
  const snapshots = ops && state.snapshots
    ? {
        snapshots: {
          ops: { ...ops },
          driverSnapshots: state.snapshots.driverSnapshots.length,
          createSnapshotCalls: csi.proxy.calls.get('CreateSnapshot') ?? 0,
          deleteSnapshotCalls: csi.proxy.calls.get('DeleteSnapshot') ?? 0,
        },
      }
    : {};
  return {
    ...snapshots,
    driver: csi.kind,
    driverVolumes,
    createVolumeCalls: csi.proxy.calls.get('CreateVolume') ?? 0,
    deleteVolumeCalls: csi.proxy.calls.get('DeleteVolume') ?? 0,
    faults: c.csiDisruptions?.faultsFired() ?? {},
    ...(made ? { volumesMade: made.volumes, namesWithSeveralVolumes: made.namesWithSeveral } : {}),
  };
}

function recordPath(o: ChaosOptions): string {
  return o.out ?? join(o.dir, `chaos-${o.seed}.json`);
}

export async function runChaos(o: ChaosOptions): Promise<ChaosRecord> {
  const startedAt = Date.now();
  const root = join(o.dir, 'volumes');
  const p = await startParts(o, startedAt);
  try {
    const c = await runChaosPhase(o, p, startedAt);
    o.log('settling: faults off, one controller');
    c.csiDisruptions?.calm();
    const { settled, inFlight } = await settle({ client: p.client, proxy: p.proxy, ec2: p.ec2, fleet: p.fleet, apiServer: p.apiServer }, o.settleTimeoutMs);
    const csi = p.csi;
    const snapshotState = csi && c.workload.snapshots ? async () => ({ driverSnapshots: await csi.snapshots(), ...(await listSnapshotObjects(p.client)) }) : undefined;
    const state = await observe(p.client, root, () => p.ec2.volumes(), p.client.entries, csi ? () => csi.volumes() : undefined, snapshotState);
    const inputs = { root, decoys: c.decoys, retainWrites: c.workload.retainWrites, history: p.client.entries, unownedEntries: c.workload.unownedStaticDirs, ...(csi ? { csiDriver: CSI_DRIVER_NAME } : {}) };
    const invariants = await checkInvariants(state, inputs);
    const csiEnd = csi && state.driverVolumes ? await csiFigures(csi, c, state) : undefined;
    const record = chaosRecord(o, p, c, { state, invariants, settled, inFlight, totalMs: Date.now() - startedAt, csi: csiEnd });
    await writeFile(recordPath(o), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(record.historyFile, `${JSON.stringify(p.client.entries)}\n`);
    return record;
  } finally {
    await stopParts(p);
  }
}

/** Removes the working directory of a clean run unless asked to keep it. */
export async function cleanUp(o: ChaosOptions, record: ChaosRecord): Promise<void> {
  if (!o.keep && record.invariants.violations.length === 0 && o.out) await rm(o.dir, { recursive: true, force: true });
}
