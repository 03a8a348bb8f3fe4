/**
 * The invariants a chaos run checks from the outside once the system settled, each over what
 * the API server, the plugin's root directory and the cloud emulator hold:
 * - backing-volumes: every directory under the root and every EBS volume belongs to exactly one
 *   PV, or to a claim still provisioning it (its uid in the name, our finalizer on it); every PV
 *   still in use has its backing volume;
 * - binding: no claim bound to two volumes, no volume to two claims, both sides agree;
 * - retain-data: everything written into a Retain volume is still there, byte for byte;
 * - decoys: nothing outside the root was deleted or changed, and each decoy's PV ended Failed;
 * - claims-explained: every claim is Bound, or Pending with an event that says why;
 * - volumes-finished: no PV is left being deleted (Terminating) once the system settled;
 * - acknowledged-writes: the history's acknowledged writes are all on the server;
 * - csi-volumes (with a CSI driver): every driver volume belongs to exactly one PV or to a claim
 *   still provisioning it, every PV of the driver names a volume it holds (csi-invariant.ts);
 * - csi-snapshots (with `--snapshots`): every snapshot the driver holds belongs to exactly one
 *   VolumeSnapshotContent or is being deleted, every ready VolumeSnapshot's content names a
 *   snapshot the driver holds (csi-snapshot-invariant.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { paths } from '../../src/kube-client/paths.js';
import type { CoreEvent, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { Ec2Volume } from '../../test/emulators/ec2.js';
import type { DriverVolume } from './csi.js';
import { checkCsiVolumes } from './csi-invariant.js';
import { checkCsiSnapshots, type CsiSnapshotsInput } from './csi-snapshot-invariant.js';
import { type HeldObject, type HistoryEntry, KEPT_OPS, lostWrites, type RecordingClient } from './history.js';
import { claimPath, type Decoy, digestOf, NAMESPACE } from './world.js';
import type { RetainWrite } from './workload.js';

export const INVARIANTS = ['backing-volumes', 'binding', 'retain-data', 'decoys', 'claims-explained', 'volumes-finished', 'acknowledged-writes', 'csi-volumes', 'csi-snapshots'] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: Invariant;
  detail: string;
}

export interface InvariantReport {
  /** Individual checks made, per invariant. */
  checked: Record<Invariant, number>;
  violations: Violation[];
}

export interface ObservedState {
  claims: PersistentVolumeClaim[];
  volumes: PersistentVolume[];
  events: CoreEvent[];
  rootEntries: string[];
  ebsVolumes: Ec2Volume[];
  held: Map<string, HeldObject>;
  /** The CSI driver's volumes (undefined when the run has no CSI driver). */
  driverVolumes?: DriverVolume[];
  /** The driver's snapshots and the snapshot objects (undefined without `--snapshots`). */
  snapshots?: SnapshotState;
}

export type SnapshotState = Omit<CsiSnapshotsInput, 'driver'>;

export interface CheckInputs {
  root: string;
  decoys: Decoy[];
  retainWrites: RetainWrite[];
  history: HistoryEntry[];
  /** Root entries the workload itself left without a PV (a static PV create it got no answer to). */
  unownedEntries: Set<string>;
  /** The CSI driver's name, when the run has one. */
  csiDriver?: string;
}

/** Reasons that explain a claim that is not Bound. */
const EXPLAINING = new Set(['WaitForFirstConsumer', 'WaitForPodScheduled', 'ProvisioningFailed', 'FailedBinding', 'ExternalProvisioning', 'Provisioning', 'ProvisioningCleanupFailed', 'ClaimLost']);

async function list<T>(client: RecordingClient, path: string): Promise<T[]> {
  const answer = await client.send<{ items: T[]; metadata?: { uid?: string } }>('list', 'GET', path);
  if (answer.outcome !== 'ok' || !answer.body) throw new Error(`listing ${path} failed: ${answer.error ?? ''}`);
  return answer.body.items;
}

/** Everything the checks look at, read once. */
export async function observe(
  client: RecordingClient,
  root: string,
  ebs: () => Ec2Volume[],
  history: HistoryEntry[],
  driverVolumes?: () => Promise<DriverVolume[]>,
  snapshots?: () => Promise<SnapshotState>,
): Promise<ObservedState> {
  const [claims, volumes, events] = await Promise.all([
    list<PersistentVolumeClaim>(client, paths.claims(NAMESPACE)),
    list<PersistentVolume>(client, paths.volumes()),
    list<CoreEvent>(client, paths.events(NAMESPACE)),
  ]);
  const held = new Map<string, HeldObject>();
  for (const c of claims) held.set(claimPath(c.metadata.name ?? ''), { uid: c.metadata.uid });
  for (const v of volumes) held.set(paths.volume(v.metadata.name ?? ''), { uid: v.metadata.uid });
  const others = new Set(history.filter((e) => KEPT_OPS.has(e.op) && !held.has(e.object)).map((e) => e.object));
  for (const path of others) {
    const obj = await client.get<{ metadata?: { uid?: string }; spec?: { leaseTransitions?: number } }>(path);
    if (obj) held.set(path, { uid: obj.metadata?.uid, ...(obj.spec?.leaseTransitions !== undefined ? { value: obj.spec.leaseTransitions } : {}) });
  }
  const rootEntries = (await readdir(root)).filter((name) => name !== '.pv-controller');
  return {
    claims,
    volumes,
    events,
    rootEntries,
    ebsVolumes: ebs(),
    held,
    ...(driverVolumes ? { driverVolumes: await driverVolumes() } : {}),
    ...(snapshots ? { snapshots: await snapshots() } : {}),
  };
}

function provisioningUids(claims: PersistentVolumeClaim[]): Set<string> {
  return new Set(claims.filter((c) => c.metadata.finalizers?.includes(FINALIZER_PROVISIONING)).map((c) => c.metadata.uid ?? ''));
}

function ebsIdOf(pv: PersistentVolume): string | undefined {
  const id = pv.spec.awsElasticBlockStore?.volumeID;
  return id === undefined ? undefined : id.slice(id.lastIndexOf('/') + 1);
}

function checkBackingVolumes(s: ObservedState, inputs: CheckInputs, report: InvariantReport): void {
  const root = inputs.root;
  const provisioning = provisioningUids(s.claims);
  const owners = (match: (pv: PersistentVolume) => boolean): string[] => s.volumes.filter(match).map((pv) => pv.metadata.name ?? '');
  const fail = (detail: string): void => void report.violations.push({ invariant: 'backing-volumes', detail });
  for (const entry of s.rootEntries) {
    report.checked['backing-volumes']++;
    const pvs = owners((pv) => pv.spec.hostPath?.path === join(root, entry));
    const uid = /^kubernetes-dynamic-pvc-(.+)$/.exec(entry)?.[1];
    if (pvs.length > 1) fail(`directory ${entry} belongs to ${pvs.length} PVs: ${pvs.join(', ')}`);
    else if (pvs.length === 0 && !(uid && provisioning.has(uid)) && !inputs.unownedEntries.has(entry)) fail(`directory ${entry} belongs to no PV and no claim provisioning it (leaked)`);
  }
  for (const disk of s.ebsVolumes) {
    report.checked['backing-volumes']++;
    const pvs = owners((pv) => ebsIdOf(pv) === disk.id);
    const uid = /^pvc-(.+)$/.exec(disk.tags['kubernetes.io/created-for/pv/name'] ?? '')?.[1];
    if (pvs.length > 1) fail(`EBS volume ${disk.id} belongs to ${pvs.length} PVs: ${pvs.join(', ')}`);
    else if (pvs.length === 0 && !(uid && provisioning.has(uid))) fail(`EBS volume ${disk.id} (${disk.tags.Name ?? ''}) belongs to no PV and no claim provisioning it (leaked)`);
  }
  const dirs = new Set(s.rootEntries.map((e) => join(root, e)));
  const disks = new Set(s.ebsVolumes.map((d) => d.id));
  for (const pv of s.volumes) {
    if (pv.status?.phase === 'Failed') continue;
    report.checked['backing-volumes']++;
    const path = pv.spec.hostPath?.path;
    const ebs = ebsIdOf(pv);
    if (path?.startsWith(`${root}/`) && !dirs.has(path)) fail(`PV ${pv.metadata.name ?? ''} (${pv.status?.phase ?? ''}) names directory ${path}, which is gone`);
    if (ebs !== undefined && !disks.has(ebs)) fail(`PV ${pv.metadata.name ?? ''} (${pv.status?.phase ?? ''}) names EBS volume ${ebs}, which is gone`);
  }
}

function checkBinding(s: ObservedState, report: InvariantReport): void {
  const fail = (detail: string): void => void report.violations.push({ invariant: 'binding', detail });
  const boundPvsByClaim = new Map<string, string[]>();
  for (const pv of s.volumes) {
    const uid = pv.spec.claimRef?.uid;
    if (pv.status?.phase !== 'Bound' || !uid) continue;
    boundPvsByClaim.set(uid, [...(boundPvsByClaim.get(uid) ?? []), pv.metadata.name ?? '']);
  }
  for (const [uid, pvs] of boundPvsByClaim) {
    report.checked.binding++;
    if (pvs.length > 1) fail(`claim uid ${uid} is bound by ${pvs.length} PVs: ${pvs.join(', ')}`);
  }
  const claimsByVolume = new Map<string, string[]>();
  for (const c of s.claims) {
    if (c.status?.phase !== 'Bound') continue;
    report.checked.binding++;
    const name = c.spec.volumeName ?? '';
    claimsByVolume.set(name, [...(claimsByVolume.get(name) ?? []), c.metadata.name ?? '']);
    const pv = s.volumes.find((v) => v.metadata.name === name);
    if (!pv) fail(`claim ${c.metadata.name ?? ''} is Bound to PV ${name}, which does not exist`);
    else if (pv.spec.claimRef?.uid !== c.metadata.uid) fail(`claim ${c.metadata.name ?? ''} is Bound to PV ${name}, whose claimRef names uid ${pv.spec.claimRef?.uid ?? 'none'}`);
  }
  for (const [pv, claims] of claimsByVolume) if (claims.length > 1) fail(`PV ${pv} is the volume of ${claims.length} Bound claims: ${claims.join(', ')}`);
}

async function intact(file: string, digest: string): Promise<boolean> {
  return readFile(file).then(
    (data) => digestOf(data) === digest,
    () => false,
  );
}

async function checkFiles(s: ObservedState, inputs: CheckInputs, report: InvariantReport): Promise<void> {
  for (const w of inputs.retainWrites) {
    report.checked['retain-data']++;
    const pv = s.volumes.find((v) => v.metadata.name === w.pvName);
    if (pv && pv.spec.persistentVolumeReclaimPolicy !== 'Retain') continue;
    if (!(await intact(w.file, w.digest))) report.violations.push({ invariant: 'retain-data', detail: `${w.file} in Retain PV ${w.pvName} was changed or deleted` });
  }
  for (const d of inputs.decoys) {
    report.checked.decoys++;
    if (!(await intact(join(d.dir, 'precious.txt'), d.digest))) report.violations.push({ invariant: 'decoys', detail: `decoy ${d.dir} (PV ${d.pvName}, ${d.policy}) was changed or deleted` });
    // Its claim was deleted once bound (workload.ts): the policy must have been refused.
    const pv = s.volumes.find((v) => v.metadata.name === d.pvName);
    if (!s.claims.some((c) => c.metadata.name === d.claimName) && pv?.status?.phase !== 'Failed') {
      report.violations.push({ invariant: 'decoys', detail: `decoy PV ${d.pvName} (${d.policy} of ${d.pvPath}) is ${pv ? (pv.status?.phase ?? 'without phase') : 'gone'}, not Failed: its reclaim was not refused` });
    }
  }
}

function checkClaimsExplained(s: ObservedState, report: InvariantReport): void {
  for (const c of s.claims) {
    report.checked['claims-explained']++;
    const name = c.metadata.name ?? '';
    const reasons = s.events.filter((e) => e.involvedObject?.uid === c.metadata.uid || (e.involvedObject?.name === name && e.involvedObject?.kind === 'PersistentVolumeClaim')).map((e) => e.reason ?? '');
    const phase = c.status?.phase ?? 'Pending';
    if (c.metadata.deletionTimestamp) {
      report.violations.push({ invariant: 'claims-explained', detail: `claim ${name} is still Terminating (finalizers ${(c.metadata.finalizers ?? []).join(', ')}; events ${reasons.join(', ') || 'none'})` });
    } else if (phase !== 'Bound' && !reasons.some((r) => EXPLAINING.has(r))) {
      report.violations.push({ invariant: 'claims-explained', detail: `claim ${name} is ${phase} with no event saying why (events: ${reasons.join(', ') || 'none'})` });
    }
  }
}

function checkVolumesFinished(s: ObservedState, report: InvariantReport): void {
  for (const pv of s.volumes) {
    report.checked['volumes-finished']++;
    if (!pv.metadata.deletionTimestamp) continue;
    const detail = `PV ${pv.metadata.name ?? ''} is ${pv.status?.phase ?? 'without phase'} and still being deleted (${pv.status?.message ?? 'no message'}; finalizers ${(pv.metadata.finalizers ?? []).join(', ')})`;
    report.violations.push({ invariant: 'volumes-finished', detail });
  }
}

/** Runs every check over `s`. */
export async function checkInvariants(s: ObservedState, inputs: CheckInputs): Promise<InvariantReport> {
  const report: InvariantReport = { checked: Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>, violations: [] };
  checkBackingVolumes(s, inputs, report);
  checkBinding(s, report);
  await checkFiles(s, inputs, report);
  checkClaimsExplained(s, report);
  checkVolumesFinished(s, report);
  const lost = lostWrites(inputs.history, s.held);
  report.checked['acknowledged-writes'] = new Set(inputs.history.filter((e) => KEPT_OPS.has(e.op) && e.outcome === 'ok').map((e) => e.object)).size;
  for (const detail of lost) report.violations.push({ invariant: 'acknowledged-writes', detail });
  if (s.driverVolumes && inputs.csiDriver) {
    const csi = checkCsiVolumes({ driver: inputs.csiDriver, driverVolumes: s.driverVolumes, claims: s.claims, volumes: s.volumes });
    report.checked['csi-volumes'] = csi.checked;
    for (const detail of csi.violations) report.violations.push({ invariant: 'csi-volumes', detail });
  }
  if (s.snapshots && inputs.csiDriver) {
    const snaps = checkCsiSnapshots({ driver: inputs.csiDriver, ...s.snapshots });
    report.checked['csi-snapshots'] = snaps.checked;
    for (const detail of snaps.violations) report.violations.push({ invariant: 'csi-snapshots', detail });
  }
  return report;
}
