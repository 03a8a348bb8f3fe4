/**
 * The chaos workload: a few concurrent workers, each drawing its next operation from its own
 * seeded generator — dynamic claims of every class, static pairs (matched by selector,
 * pre-bound claim, pre-bound PV), WaitForFirstConsumer claims with a pod and the selected-node
 * annotation, deletions, re-creation under the same name, data written into Retain volumes,
 * ledger writes, and deletion of the decoys' claims. Every request goes to the API server
 * directly and is recorded in the history.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import { paths } from '../../src/kube-client/paths.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { Answer, RecordingClient } from './history.js';
import type { Prng } from './prng.js';
import { SNAPSHOT_OPS, type SnapshotOp, type SnapshotWorkload } from './snapshot-workload.js';
import {
  claimPath,
  CSI_CLASS,
  type Decoy,
  digestOf,
  immediateClasses,
  isRetainClass,
  ledgerBody,
  ledgerPath,
  NAMESPACE,
  newClaim,
  NODE_NAME,
  staticVolume,
  wffcClasses,
} from './world.js';

export type ClaimKind = 'dynamic' | 'static' | 'wffc' | 'decoy';

interface LiveClaim {
  name: string;
  className: string;
  kind: ClaimKind;
  retain: boolean;
  pod?: string;
}

/** Data the workload wrote into a Retain volume: it must still be there at the end. */
export interface RetainWrite {
  pvName: string;
  file: string;
  digest: string;
}

const OPS = { dynamic: 5, static: 2, wffc: 2, remove: 3, recreate: 1, retainData: 2, ledger: 3, decoy: 1 } as const;
type Op = keyof typeof OPS;

export class Workload {
  claimsCreated = 0;
  /** Claim-creating operations under way; each holds one of the target's slots. */
  private claimsPending = 0;
  readonly claimsByKind: Record<ClaimKind, number> = { dynamic: 0, static: 0, wffc: 0, decoy: 0 };
  readonly retainWrites: RetainWrite[] = [];
  /** Static volume directories whose PV create was not acknowledged: the workload's own leftovers, never the controller's. */
  readonly unownedStaticDirs = new Set<string>();
  private readonly live = new Map<string, LiveClaim>();
  private readonly taken = new Set<string>();
  private seq = 0;

  constructor(
    private readonly client: RecordingClient,
    private readonly root: string,
    decoys: Decoy[],
    private readonly targetClaims: number,
    /** The run has a CSI driver: its classes are drawn from too. */
    private readonly withCsi = false,
    /** `--snapshots`: VolumeSnapshots of the CSI claims and restores from them are drawn too. */
    readonly snapshots?: SnapshotWorkload,
  ) {
    for (const d of decoys) this.live.set(d.claimName, { name: d.claimName, className: '', kind: 'decoy', retain: false });
  }

  /**
   * Runs `workers` workers, `opsPerSecond` operations a second between them, until the target
   * number of claims was created or `stop()` says so.
   */
  async run(random: Prng, workers: number, opsPerSecond: number, stop: () => boolean): Promise<void> {
    const pauseMs = (1000 * workers) / opsPerSecond;
    const done = (): boolean => stop() || this.claimsCreated >= this.targetClaims;
    const withSnapshots = { ...OPS, ...SNAPSHOT_OPS };
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const r = random.fork(`worker-${w}`);
        let ledgerValue = 0;
        while (!done()) {
          // Without --snapshots the table (and so every seed's draws) is the one earlier runs were recorded with.
          const op: Op | SnapshotOp = this.snapshots ? r.weighted(withSnapshots) : r.weighted(OPS);
          const outcome = op === 'ledger' ? await this.writeLedger(w, ++ledgerValue) : await this.perform(op, r);
          // The server may be down (killed): do not spin on refused connections.
          await sleep(Math.max(outcome === 'unknown' ? 250 : 0, r.int(pauseMs / 2, (pauseMs * 3) / 2)));
        }
      }),
    );
    // Every decoy's claim is deleted once bound by the end, so every decoy's PV faces its reclaim policy.
    for (let attempt = 0; attempt < 60 && [...this.live.values()].some((c) => c.kind === 'decoy'); attempt++) {
      if ((await this.removeBoundDecoy(random)) !== 'ok') await sleep(1000);
    }
  }

  /**
   * Deletes a decoy's claim once it is Bound ('unknown' while it is not): deleted earlier, the
   * PV was never bound, stays Available, and its reclaim policy is never put to the test.
   */
  private async removeBoundDecoy(r: Prng): Promise<Answer<unknown>['outcome']> {
    const decoy = this.pickLive(r, (c) => c.kind === 'decoy');
    if (!decoy) return 'ok';
    const claim = await this.client.get<PersistentVolumeClaim>(claimPath(decoy.name));
    if (claim?.status?.phase === 'Bound') return this.removeClaim(r, decoy);
    this.taken.delete(decoy.name);
    return 'unknown';
  }

  private perform(op: Exclude<Op | SnapshotOp, 'ledger'>, r: Prng): Promise<Answer<unknown>['outcome']> {
    switch (op) {
      case 'snapshot':
        return this.snapshotClaim(r);
      case 'unsnapshot':
        return this.snapshots?.remove(r) ?? Promise.resolve('ok');
      case 'restore':
        return this.creating(() => this.restoreClaim(r));
      case 'dynamic':
        return this.creating(() => this.createClaim(`claim-${++this.seq}`, r.pick(immediateClasses(this.withCsi)), 'dynamic'));
      case 'static':
        return this.creating(() => this.createStaticPair(r));
      case 'wffc':
        return this.creating(() => this.createWaitingClaim(r));
      case 'recreate':
        return this.creating(() => this.recreateClaim(r));
      case 'remove':
        return this.removeClaim(r, this.pickLive(r, (c) => c.kind !== 'decoy'));
      case 'retainData':
        return this.writeRetainData(r);
      case 'decoy':
        return this.removeBoundDecoy(r);
    }
  }

  /**
   * Runs a claim-creating operation holding one of the target's slots from its start: the static
   * pair awaits its PV and recreate its delete before the claim is counted, so without the slot
   * two workers that both saw one claim missing would create two (a run made 61 of 60).
   */
  private async creating(make: () => Promise<Answer<unknown>['outcome']>): Promise<Answer<unknown>['outcome']> {
    if (this.claimsCreated + this.claimsPending >= this.targetClaims) return 'ok';
    this.claimsPending++;
    try {
      return await make();
    } finally {
      this.claimsPending--;
    }
  }

  /** A live claim no other worker is working on, marked taken; undefined when there is none. */
  private pickLive(r: Prng, wanted: (c: LiveClaim) => boolean): LiveClaim | undefined {
    const candidates = [...this.live.values()].filter((c) => wanted(c) && !this.taken.has(c.name));
    if (candidates.length === 0) return undefined;
    const claim = r.pick(candidates);
    this.taken.add(claim.name);
    return claim;
  }

  private async createClaim(name: string, className: string, kind: ClaimKind, body = newClaim(name, className), retain = isRetainClass(className)): Promise<Answer<unknown>['outcome']> {
    this.claimsCreated++;
    this.claimsByKind[kind]++;
    const made = await this.client.send<PersistentVolumeClaim>('claim', 'POST', paths.claims(NAMESPACE), body, { object: claimPath(name) });
    if (made.outcome !== 'failed') this.live.set(name, { name, className, kind, retain });
    return made.outcome;
  }

  private async createStaticPair(r: Prng): Promise<Answer<unknown>['outcome']> {
    const n = ++this.seq;
    const policy = r.pick(['Retain', 'Recycle', 'Delete'] as const);
    const pairing = r.pick(['selector', 'preboundClaim', 'preboundVolume'] as const);
    const dir = join(this.root, `static-${n}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'seed.txt'), `static volume ${n}\n`);
    const [pvName, claimName] = [`chaos-static-${n}`, `static-${n}`];
    const claimRef = pairing === 'preboundVolume' ? { claimRef: { namespace: NAMESPACE, name: claimName } } : {};
    const pv = staticVolume(pvName, dir, policy, claimRef, { 'chaos-pair': String(n) });
    const op = policy === 'Delete' ? 'pv' : 'pv-kept';
    const made = await this.client.send(op, 'POST', paths.volumes(), pv, { object: paths.volume(pvName) });
    if (made.outcome !== 'ok') this.unownedStaticDirs.add(`static-${n}`);
    if (made.outcome === 'failed') return made.outcome;
    const spec = pairing === 'preboundClaim' ? { volumeName: pvName } : { selector: { matchLabels: { 'chaos-pair': String(n) } } };
    return this.createClaim(claimName, '', 'static', newClaim(claimName, '', spec), policy === 'Retain');
  }

  private async createWaitingClaim(r: Prng): Promise<Answer<unknown>['outcome']> {
    const name = `late-${++this.seq}`;
    const className = r.pick(wffcClasses(this.withCsi));
    const annotatedAtOnce = r.chance(0.25);
    const outcome = await this.createClaim(name, className, 'wffc', newClaim(name, className, {}, annotatedAtOnce));
    // Some claims never get a consumer: they must stay Pending, saying why.
    if (outcome === 'failed' || annotatedAtOnce || !r.chance(0.75)) return outcome;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${name}` },
      spec: { containers: [{ name: 'app', image: 'registry.invalid/app' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] },
    };
    const made = await this.client.send('pod', 'POST', paths.pods(NAMESPACE), pod, { object: `${paths.pods(NAMESPACE)}/pod-${name}` });
    const live = this.live.get(name);
    if (live && made.outcome !== 'failed') live.pod = `pod-${name}`;
    // The workload plays the scheduler: it picks the node for the pod.
    const patch = { metadata: { annotations: { [ANN_SELECTED_NODE]: NODE_NAME } } };
    return (await this.client.send('annotate', 'PATCH', claimPath(name), patch, { contentType: 'application/merge-patch+json' })).outcome;
  }

  private async removeClaim(_r: Prng, claim: LiveClaim | undefined): Promise<Answer<unknown>['outcome']> {
    if (!claim) return 'ok';
    try {
      if (claim.pod) await this.client.send('pod', 'DELETE', `${paths.pods(NAMESPACE)}/${claim.pod}`);
      const removed = await this.client.send('claim', 'DELETE', claimPath(claim.name));
      if (removed.outcome !== 'failed' || /not found/i.test(removed.error ?? '')) this.live.delete(claim.name);
      return removed.outcome;
    } finally {
      this.taken.delete(claim.name);
    }
  }

  /** Deletes a dynamic claim and creates one of the same name at once (a new uid, the old volume released). */
  private async recreateClaim(r: Prng): Promise<Answer<unknown>['outcome']> {
    const claim = this.pickLive(r, (c) => c.kind === 'dynamic');
    if (!claim) return 'ok';
    await this.removeClaim(r, claim);
    this.taken.add(claim.name);
    try {
      return await this.createClaim(claim.name, claim.className, 'dynamic');
    } finally {
      this.taken.delete(claim.name);
    }
  }

  private async writeRetainData(r: Prng): Promise<Answer<unknown>['outcome']> {
    const claim = this.pickLive(r, (c) => c.retain);
    if (!claim) return 'ok';
    try {
      const live = await this.client.get<PersistentVolumeClaim>(claimPath(claim.name));
      if (live?.status?.phase !== 'Bound' || !live.spec.volumeName) return 'ok';
      const pv = await this.client.get<PersistentVolume>(paths.volume(live.spec.volumeName));
      const dir = pv?.spec.hostPath?.path;
      if (!pv || !dir || pv.spec.persistentVolumeReclaimPolicy !== 'Retain' || pv.spec.claimRef?.uid !== live.metadata.uid) return 'ok';
      const content = `written for ${claim.name} (${live.metadata.uid ?? ''}) as ${r.int(0, 1e9)}\n`;
      const file = join(dir, `chaos-data-${this.retainWrites.length}`);
      await writeFile(file, content);
      this.retainWrites.push({ pvName: pv.metadata.name ?? '', file, digest: digestOf(content) });
      return 'ok';
    } finally {
      this.taken.delete(claim.name);
    }
  }

  /** A VolumeSnapshot of one of the live CSI claims (bound or not: the controllers must cope). */
  private async snapshotClaim(r: Prng): Promise<Answer<unknown>['outcome']> {
    const claim = this.snapshots && this.pickLive(r, (c) => c.className === CSI_CLASS);
    if (!claim || !this.snapshots) return 'ok';
    try {
      return await this.snapshots.snapshot(claim.name);
    } finally {
      this.taken.delete(claim.name);
    }
  }

  /** A CSI claim restored from one of the workload's VolumeSnapshots (ready, not yet, or being deleted). */
  private async restoreClaim(r: Prng): Promise<Answer<unknown>['outcome']> {
    const snapshot = this.snapshots?.pick(r);
    if (!this.snapshots || snapshot === undefined) return 'ok';
    const name = `restored-${++this.seq}`;
    return this.createClaim(name, CSI_CLASS, 'dynamic', this.snapshots.restoredClaim(name, CSI_CLASS, snapshot));
  }

  private async writeLedger(worker: number, value: number): Promise<Answer<unknown>['outcome']> {
    return (await this.client.send('ledger', 'PUT', ledgerPath(worker), ledgerBody(worker, value), { value })).outcome;
  }
}
