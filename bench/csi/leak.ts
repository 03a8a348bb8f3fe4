/**
 * The leak experiment of issue 26 (external-provisioner#486), one round at a time: a claim is
 * created; the proxy holds CreateVolume's answer after the driver made the volume; the claim is
 * deleted while CreateVolume is in flight; the provisioner is killed (SIGKILL) and started again;
 * then the round waits until the claim is gone and the driver has been quiet for a while. A
 * volume leaks when the driver made it for the round's claim, never deleted it, and no PV refers
 * to it. The driver's account comes from its own call log, cross-checked against the PV list.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { expectOk } from '../client/kube-client.js';
import { waitFor } from '../proc/child.js';
import { csiClaim } from './claims.js';
import { CLAIMS_PATH, type CsiWorld } from './world.js';

/** No driver call and no change for this long after the claim is gone: the round has settled. */
const QUIET_MS = 5000;
const ROUND_DEADLINE_MS = 120_000;

export interface LeakRound {
  round: number;
  claim: string;
  uid: string;
  /** The claim was gone by the deadline. */
  claimGone: boolean;
  /** Driver volumes made for this claim (ids), those still alive, and those alive with no PV. */
  volumesMade: string[];
  leaked: string[];
  /** Alive volumes a PV still refers to (not leaked: a PV owns them). */
  heldByPv: string[];
  /** CreateVolume calls for this claim (any answer). */
  createCalls: number;
}

export interface LeakResult {
  provisioner: string;
  rounds: LeakRound[];
  leakedTotal: number;
  /** Cross-check over the whole driver: alive volumes that no PV's volumeHandle names. */
  orphansByPvList: number;
  /** CreateVolume names called more than once, and the most calls one name got. */
  namesCalledMoreThanOnce: number;
  maxCallsPerName: number;
  /** Distinct CreateVolume names per claim, at most (two names for one claim would double its quota). */
  maxNamesPerClaim: number;
}

async function volumeHandles(world: CsiWorld): Promise<Set<string>> {
  const list = JSON.parse(expectOk(await world.client.raw('GET', '/api/v1/persistentvolumes'), 'list PVs').body) as { items: PersistentVolume[] };
  return new Set(list.items.map((pv) => pv.spec.csi?.volumeHandle).filter((h): h is string => h !== undefined));
}

async function claimGone(world: CsiWorld, name: string): Promise<boolean> {
  const res = await world.client.raw('GET', `${CLAIMS_PATH}/${name}`);
  return res.status === 404;
}

/** Waits until no volume was made or removed and the PV list has not changed for QUIET_MS (or the deadline). */
async function settle(world: CsiWorld, deadline: number): Promise<void> {
  let last = '';
  let since = Date.now();
  while (Date.now() < deadline) {
    world.checkAlive();
    const ledger = world.driver.ledger.refresh();
    // Only the calls that make or remove volumes: a provisioner may poll (Probe, GetCapacity) forever.
    const volumeCalls = (ledger.calls.get('CreateVolume') ?? 0) + (ledger.calls.get('DeleteVolume') ?? 0);
    const state = `${volumeCalls}/${[...(await volumeHandles(world))].sort().join(',')}`;
    if (state !== last) {
      last = state;
      since = Date.now();
    } else if (Date.now() - since >= QUIET_MS) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function runRound(world: CsiWorld, round: number, log: (line: string) => void): Promise<LeakRound> {
  const name = `leak-${round}`;
  world.proxy.setRule({ method: 'CreateVolume', fault: { kind: 'hang', when: 'after' }, times: 1 });
  const created = expectOk(await world.client.raw('POST', CLAIMS_PATH, JSON.stringify(csiClaim(name))), `create claim ${name}`);
  const uid = (JSON.parse(created.body) as { metadata: { uid: string } }).metadata.uid;
  // The driver has made the volume; the provisioner has not heard.
  await waitFor(`CreateVolume for ${name} held after the driver answered`, () => {
    world.checkAlive();
    return world.proxy.held('CreateVolume', 'after') > 0 ? true : undefined;
  }, ROUND_DEADLINE_MS, 50);
  expectOk(await world.client.raw('DELETE', `${CLAIMS_PATH}/${name}`), `delete claim ${name}`);
  await world.crashAndRestart();
  world.proxy.release('CreateVolume'); // the answer goes to a caller that is gone
  const deadline = Date.now() + ROUND_DEADLINE_MS;
  const gone = await waitFor(`claim ${name} gone`, async () => {
    world.checkAlive();
    return (await claimGone(world, name)) ? true : Date.now() > deadline ? false : undefined;
  }, ROUND_DEADLINE_MS + 5000, 200);
  await settle(world, Date.now() + ROUND_DEADLINE_MS);
  const ledger = world.driver.ledger.refresh();
  const mine = [...ledger.created.values()].filter((v) => v.name.includes(uid));
  const alive = mine.filter((v) => !ledger.deleted.has(v.id)).map((v) => v.id);
  const handles = await volumeHandles(world);
  const result: LeakRound = {
    round,
    claim: name,
    uid,
    claimGone: gone,
    volumesMade: mine.map((v) => v.id),
    leaked: alive.filter((id) => !handles.has(id)),
    heldByPv: alive.filter((id) => handles.has(id)),
    createCalls: [...ledger.createCallsByName].filter(([n]) => n.includes(uid)).reduce((sum, [, c]) => sum + c, 0),
  };
  log(`[csi-leak ${world.kind}] round ${round}: claim gone ${gone}, volumes made ${result.volumesMade.length}, leaked ${result.leaked.length}, held by a PV ${result.heldByPv.length}, CreateVolume calls ${result.createCalls}`);
  return result;
}

export async function runLeakExperiment(world: CsiWorld, rounds: number, log: (line: string) => void): Promise<LeakResult> {
  const results: LeakRound[] = [];
  for (let round = 1; round <= rounds; round++) results.push(await runRound(world, round, log));
  const ledger = world.driver.ledger.refresh();
  const handles = await volumeHandles(world);
  const perName = [...ledger.createCallsByName.values()];
  return {
    provisioner: world.kind,
    rounds: results,
    leakedTotal: results.reduce((sum, r) => sum + r.leaked.length, 0),
    orphansByPvList: ledger.liveVolumes().filter((v) => !handles.has(v.id)).length,
    namesCalledMoreThanOnce: perName.filter((c) => c > 1).length,
    maxCallsPerName: Math.max(0, ...perName),
    maxNamesPerClaim: Math.max(0, ...results.map((r) => new Set([...ledger.createCallsByName.keys()].filter((n) => n.includes(r.uid))).size)),
  };
}
