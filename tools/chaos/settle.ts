/**
 * Settling after the chaos: faults off, the API server up, exactly one controller (the one that
 * lived through the end of the chaos, with leader election on), then wait until nothing is
 * in flight — no claim being deleted or provisioned, no Immediate claim unbound, no reclaimable
 * volume waiting — and claims and volumes stayed unchanged for three polls in a row.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ANN_SELECTED_NODE, FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { paths } from '../../src/kube-client/paths.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { Ec2Emulator } from '../../test/emulators/ec2.js';
import type { RecordingClient } from './history.js';
import type { ControllerFleet, EmbeddedApiServer } from './processes.js';
import type { FaultProxy } from './proxy.js';
import { isWffcClass, NAMESPACE } from './world.js';

export interface SettleParts {
  client: RecordingClient;
  proxy: FaultProxy;
  ec2: Ec2Emulator;
  fleet: ControllerFleet;
  apiServer: EmbeddedApiServer | undefined;
}

function claimInFlight(c: PersistentVolumeClaim): boolean {
  if (c.metadata.deletionTimestamp || c.metadata.finalizers?.includes(FINALIZER_PROVISIONING)) return true;
  if (c.status?.phase === 'Bound') return false;
  const className = c.spec.storageClassName ?? '';
  if (className === '') return false;
  return !isWffcClass(className) || c.metadata.annotations?.[ANN_SELECTED_NODE] !== undefined;
}

function volumeInFlight(pv: PersistentVolume): boolean {
  // A Failed PV waits for an operator even while being deleted: it will not change by itself.
  if ((pv.metadata.deletionTimestamp && pv.status?.phase !== 'Failed') || pv.status?.phase === 'Pending') return true;
  return pv.status?.phase === 'Released' && pv.spec.persistentVolumeReclaimPolicy !== 'Retain';
}

async function listItems<T>(client: RecordingClient, path: string): Promise<T[] | undefined> {
  const body = await client.get<{ items: T[]; metadata?: { uid?: string } }>(path);
  return body?.items;
}

export interface SettleResult {
  settled: boolean;
  /** What was still in flight at the last poll (empty once settled). */
  inFlight: string[];
}

/** Settled, or what was still in flight when `timeoutMs` passed (the checks then show what is stuck). */
export async function settle(p: SettleParts, timeoutMs: number): Promise<SettleResult> {
  p.proxy.setRandomFaults(undefined);
  p.ec2.faults.clear();
  if (p.apiServer && !p.apiServer.up) await p.apiServer.restart();
  // The controller that survived the chaos must converge by itself: it is not replaced.
  while (p.fleet.count() > 1) await p.fleet.kill(p.fleet.count() - 1);
  if (p.fleet.count() === 0) p.fleet.start(true);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let stablePolls = 0;
  let inFlight: string[] = [];
  while (Date.now() < deadline) {
    await sleep(1000);
    const [claims, volumes] = await Promise.all([
      listItems<PersistentVolumeClaim>(p.client, paths.claims(NAMESPACE)),
      listItems<PersistentVolume>(p.client, paths.volumes()),
    ]);
    if (!claims || !volumes) continue;
    inFlight = [
      ...claims.filter(claimInFlight).map((c) => `claim ${c.metadata.name ?? ''} (${c.status?.phase ?? 'Pending'}${c.metadata.deletionTimestamp ? ', Terminating' : ''})`),
      ...volumes.filter(volumeInFlight).map((v) => `PV ${v.metadata.name ?? ''} (${v.status?.phase ?? ''}${v.metadata.deletionTimestamp ? ', Terminating' : ''}: ${v.status?.message ?? ''})`),
    ];
    const busy = inFlight.length > 0;
    const fingerprint = [...claims, ...volumes].map((o) => `${o.metadata.name ?? ''}@${o.metadata.resourceVersion ?? ''}`).join(',');
    stablePolls = !busy && fingerprint === last ? stablePolls + 1 : 0;
    last = fingerprint;
    if (stablePolls >= 3) return { settled: true, inFlight: [] };
  }
  return { settled: false, inFlight };
}
