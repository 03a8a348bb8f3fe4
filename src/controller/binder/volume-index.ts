/**
 * The binder's view of every PV, indexed for matching (upstream's `persistentVolumeOrderedIndex`
 * and `FindMatchingVolume`).
 *
 * Candidates for a new binding (phase Available, no claimRef, not being deleted) live in
 * buckets keyed by (storage class, volumeMode, volume attributes class, access-mode group),
 * each sorted by capacity. A lookup visits the claim's few access-mode groups, smallest group
 * first, binary-searches each for the request size and walks forward only past volumes the
 * label selector rejects. Volumes with a claimRef are indexed by the claim's `namespace/name`,
 * so pre-bound volumes are found without a scan.
 *
 * The index holds the newest copy of each PV: an `upsert` of a copy older than the one held is
 * ignored (older by integer resourceVersion: kube-client/cache/resource-version.ts).
 */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { labelSelectorMatches } from '@pv-controller/kube/selectors.js';
import {
  accessModesContain,
  accessModesFromKey,
  accessModesKey,
  isVolumeBoundToClaim,
  storageClassOfVolume,
  volumeModeOf,
} from '@pv-controller/kube/volume-helpers.js';
import { ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import { isNewerCopy, rvNumber } from '../../kube-client/cache/resource-version.js';
import { CapacityBucket, type LookupCounters } from './capacity-bucket.js';
import {
  capacityBytesOf,
  matchingClassOfClaim,
  nodeAffinityAllows,
  requestBytesOf,
  volumeAttributesClassOf,
  volumeModeMismatch,
} from './match.js';

export interface VolumeIndexOptions {
  /**
   * Labels of a node by name, for checking a pre-bound volume's node affinity against the
   * claim's selected node under WaitForFirstConsumer. Unknown node (undefined) ⇒ not checked.
   */
  nodeLabels?(nodeName: string): Record<string, string> | undefined;
}

interface Placement {
  pv: PersistentVolume;
  capacity: bigint;
  /** Candidate bucket key, when the PV is free for a new binding. */
  bucket?: string;
  /** `namespace/name` of the claim its claimRef names, when it has one. */
  claimKey?: string;
}

const SEP = '\u0000';

function shapeKeyOf(cls: string, volumeMode: string, vac: string): string {
  return [cls, volumeMode, vac].join(SEP);
}

/** Both copies carry the same integer resourceVersion of the same object (uid). */
function isSameVersion(a: PersistentVolume, b: PersistentVolume): boolean {
  const rv = rvNumber(a.metadata.resourceVersion);
  return rv >= 0 && rv === rvNumber(b.metadata.resourceVersion) && a.metadata.uid === b.metadata.uid;
}

function isFreeCandidate(pv: PersistentVolume): boolean {
  return pv.status?.phase === 'Available' && !pv.spec.claimRef && !pv.metadata.deletionTimestamp;
}

export class VolumeIndex {
  private readonly byName = new Map<string, Placement>();
  private readonly buckets = new Map<string, CapacityBucket>();
  /** shape key → access-mode group keys that have a non-empty bucket. */
  private readonly groupsByShape = new Map<string, Set<string>>();
  private readonly byClaimKey = new Map<string, Set<string>>();
  /** Work done by lookups since construction (debug / test counters). */
  readonly counters: LookupCounters = { comparisons: 0, candidatesExamined: 0 };
  /**
   * Volumes a claim sync has picked and is binding right now (name → claim key). Other claims'
   * lookups pass them over, so concurrent workers never race for one volume (each loser would
   * get a 409 and a wasted round trip); the binding itself is still guarded by resourceVersion.
   */
  private readonly reserved = new Map<string, string>();

  constructor(private readonly options: VolumeIndexOptions = {}) {}

  size(): number {
    return this.byName.size;
  }

  get(name: string): PersistentVolume | undefined {
    return this.byName.get(name)?.pv;
  }

  upsert(pv: PersistentVolume): void {
    const name = pv.metadata.name;
    if (!name) return;
    const held = this.byName.get(name);
    if (held) {
      // The same version again (the informer's echo of a write whose answer is already held)
      // is the same content: re-placing it would only redo the bucket work.
      if (isNewerCopy(held.pv, pv) || isSameVersion(held.pv, pv)) return;
      this.unplace(name, held);
    }
    this.place(name, pv);
  }

  remove(name: string): void {
    const held = this.byName.get(name);
    if (held) this.unplace(name, held);
  }

  /**
   * The volume `claim` should be bound to, or undefined. Pre-bound volumes (claimRef naming this
   * claim, by name or name+uid) win; otherwise, unless `delayBinding`, the smallest Available
   * volume of the claim's class that satisfies it, searching the smallest access-mode group
   * that contains the claim's modes first.
   */
  findBestMatch(claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined {
    const preBound = this.findPreBound(claim, delayBinding);
    if (preBound || delayBinding) return preBound;
    const request = requestBytesOf(claim);
    const shape = shapeKeyOf(matchingClassOfClaim(claim), volumeModeOf(claim), volumeAttributesClassOf(claim));
    for (const group of this.groupsContaining(shape, claim)) {
      const bucket = this.buckets.get(shape + SEP + group);
      if (!bucket) continue;
      for (const entry of bucket.atLeast(request, this.counters)) {
        this.counters.candidatesExamined++;
        const reservedFor = this.reserved.get(entry.name);
        if (reservedFor !== undefined && reservedFor !== claimKeyOf(claim)) continue;
        const pv = this.byName.get(entry.name)?.pv;
        if (pv && labelSelectorMatches(claim.spec.selector, pv.metadata.labels)) return pv;
      }
    }
    return undefined;
  }

  /**
   * Marks a volume as being bound to a claim until `release`. Call it in the same synchronous
   * stretch as the `findBestMatch` that returned the volume. False if another claim holds it.
   */
  reserve(name: string, claimKey: string): boolean {
    const holder = this.reserved.get(name);
    if (holder !== undefined && holder !== claimKey) return false;
    this.reserved.set(name, claimKey);
    return true;
  }

  release(name: string, claimKey: string): void {
    if (this.reserved.get(name) === claimKey) this.reserved.delete(name);
  }

  /** Steps 2–8 of FindMatchingVolume for the volumes whose claimRef names this claim. */
  private findPreBound(claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined {
    const names = this.byClaimKey.get(`${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`);
    if (!names) return undefined;
    const request = requestBytesOf(claim);
    let best: PersistentVolume | undefined;
    for (const name of [...names].sort()) {
      this.counters.candidatesExamined++;
      const held = this.byName.get(name);
      if (!held) continue;
      const pv = held.pv;
      if (!isVolumeBoundToClaim(pv, claim)) continue;
      if (held.capacity < request || volumeModeMismatch(pv, claim)) continue;
      if (volumeAttributesClassOf(pv) !== volumeAttributesClassOf(claim)) continue;
      if (pv.metadata.deletionTimestamp) continue;
      if (!accessModesContain(pv.spec.accessModes, claim.spec.accessModes)) continue;
      if (delayBinding && !this.fitsSelectedNode(pv, claim)) continue;
      // A claimRef carrying the claim's uid (an interrupted bind) beats a name-only reservation.
      if (!best || (pv.spec.claimRef?.uid && !best.spec.claimRef?.uid)) best = pv;
    }
    return best;
  }

  private fitsSelectedNode(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
    const node = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    if (!node) return true;
    const labels = this.options.nodeLabels?.(node);
    return labels === undefined || nodeAffinityAllows(pv, node, labels);
  }

  /** Access-mode groups of this shape containing every requested mode, fewest modes first. */
  private groupsContaining(shape: string, claim: PersistentVolumeClaim): string[] {
    const groups = this.groupsByShape.get(shape);
    if (!groups) return [];
    const fitting = [...groups].filter((g) => accessModesContain(accessModesFromKey(g), claim.spec.accessModes));
    const count = (g: string): number => (g === '' ? 0 : g.split(',').length);
    return fitting.sort((a, b) => count(a) - count(b) || (a < b ? -1 : a > b ? 1 : 0));
  }

  private place(name: string, pv: PersistentVolume): void {
    const placement: Placement = { pv, capacity: capacityBytesOf(pv) };
    const ref = pv.spec.claimRef;
    if (ref) {
      placement.claimKey = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
      let set = this.byClaimKey.get(placement.claimKey);
      if (!set) this.byClaimKey.set(placement.claimKey, (set = new Set()));
      set.add(name);
    }
    if (isFreeCandidate(pv)) {
      const shape = shapeKeyOf(storageClassOfVolume(pv), volumeModeOf(pv), volumeAttributesClassOf(pv));
      const group = accessModesKey(pv.spec.accessModes);
      placement.bucket = shape + SEP + group;
      let bucket = this.buckets.get(placement.bucket);
      if (!bucket) this.buckets.set(placement.bucket, (bucket = new CapacityBucket()));
      bucket.insert({ capacity: placement.capacity, name });
      let groups = this.groupsByShape.get(shape);
      if (!groups) this.groupsByShape.set(shape, (groups = new Set()));
      groups.add(group);
    }
    this.byName.set(name, placement);
  }

  private unplace(name: string, held: Placement): void {
    this.byName.delete(name);
    if (held.claimKey) {
      const set = this.byClaimKey.get(held.claimKey);
      set?.delete(name);
      if (set && set.size === 0) this.byClaimKey.delete(held.claimKey);
    }
    if (held.bucket) {
      const bucket = this.buckets.get(held.bucket);
      bucket?.remove({ capacity: held.capacity, name });
      if (bucket && bucket.size === 0) {
        this.buckets.delete(held.bucket);
        const cut = held.bucket.lastIndexOf(SEP);
        const shape = held.bucket.slice(0, cut);
        const groups = this.groupsByShape.get(shape);
        groups?.delete(held.bucket.slice(cut + 1));
        if (groups && groups.size === 0) this.groupsByShape.delete(shape);
      }
    }
  }
}

function claimKeyOf(claim: PersistentVolumeClaim): string {
  return `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
}
