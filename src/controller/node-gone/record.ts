/**
 * Node-gone's durable state, kept where only the controller writes: one Lease per PV in the
 * controller's own namespace (`--leader-elect-resource-namespace`, beside its leader lease),
 * named `<lease name>-node-gone-<pv name>` (a hash of the PV name where that would be too long).
 *
 * Nothing on the PV or the claim is read as proof. A PV's annotations can be written by anyone
 * who may update PVs, so the facts that make node-gone delete and re-create a claim are:
 * - the clock (`spec.acquireTime`): started only by this controller, when its Node watch saw the
 *   node deleted, and confirmed by a live GET when the delay is over;
 * - the claim: the one bound both ways to the PV (its `claimRef` uid is the live claim's uid and
 *   the live claim's `spec.volumeName` is the PV), read live; its template is copied into the
 *   record before the claim is deleted, so a crash between the delete and the re-create loses
 *   nothing, and the re-created claim is exactly the deleted one (same namespace and name).
 *
 * Writing Leases in the controller's namespace is as strong a right as taking its leadership.
 * The record also names the PV's uid and node: a record of another PV (a PV re-created under the
 * same name, a node affinity changed) is stale and is removed, never acted on. Its owner
 * reference to the PV lets a cluster's garbage collector remove it with the PV; node-gone also
 * removes it itself when it is done.
 */
import { createHash } from 'node:crypto';
import {
  ANN_NODE_GONE_CLAIM_TEMPLATE,
  ANN_NODE_GONE_KEPT,
  ANN_NODE_GONE_NODE,
  ANN_NODE_GONE_VOLUME,
  ANN_NODE_GONE_VOLUME_UID,
  LABEL_NODE_GONE_RECORD,
} from '@pv-controller/kube/annotations.js';
import { isAlreadyExists, isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { Lease, PersistentVolume } from '@pv-controller/kube/types.js';
import type { ApiClient } from '../runtime/context.js';
import { parseClaimTemplate, type ClaimTemplate } from './claim-template.js';

/** What node-gone knows of one PV whose node it saw deleted. */
export interface NodeGoneRecord {
  pv: string;
  pvUid: string;
  node: string;
  /** When this controller saw the node deleted. */
  since: Date;
  /** The claim being replaced (copied from the live claim before it was deleted). */
  claim?: ClaimTemplate;
  /** When a Retain (or Recycle) volume was kept: said once. */
  kept?: Date;
  /** The stored Lease (resourceVersion for the next write); undefined before it is created. */
  lease?: Lease;
}

const MAX_NAME = 253;

/** The record's Lease name for `pv` under the controller's lease name `prefix`. */
export function recordName(prefix: string, pv: string): string {
  const name = `${prefix}-node-gone-${pv}`;
  if (name.length <= MAX_NAME) return name;
  return `${prefix.slice(0, 150)}-node-gone-${createHash('sha256').update(pv).digest('hex').slice(0, 40)}`;
}

/** Lease times carry 6 fractional digits (a real API server refuses other forms). */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function recordToLease(rec: NodeGoneRecord, namespace: string, prefix: string, holder: string): Lease {
  const annotations: Record<string, string> = {
    [ANN_NODE_GONE_VOLUME]: rec.pv,
    [ANN_NODE_GONE_VOLUME_UID]: rec.pvUid,
    [ANN_NODE_GONE_NODE]: rec.node,
  };
  if (rec.claim) annotations[ANN_NODE_GONE_CLAIM_TEMPLATE] = JSON.stringify(rec.claim);
  if (rec.kept) annotations[ANN_NODE_GONE_KEPT] = rec.kept.toISOString();
  const metadata = rec.lease?.metadata;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      ...(metadata ? structuredClone(metadata) : {}),
      name: recordName(prefix, rec.pv),
      namespace,
      labels: { ...metadata?.labels, [LABEL_NODE_GONE_RECORD]: 'true' },
      annotations: { ...metadata?.annotations, ...annotations },
      ownerReferences: [{ apiVersion: 'v1', kind: 'PersistentVolume', name: rec.pv, uid: rec.pvUid }],
    },
    spec: { holderIdentity: holder, acquireTime: microTime(rec.since) },
  };
}

/** The record a Lease holds; undefined when it is not a whole one (then it is ignored and removed). */
export function leaseToRecord(lease: Lease): NodeGoneRecord | undefined {
  const a = lease.metadata.annotations ?? {};
  const pv = a[ANN_NODE_GONE_VOLUME];
  const pvUid = a[ANN_NODE_GONE_VOLUME_UID];
  const node = a[ANN_NODE_GONE_NODE];
  const since = Date.parse(lease.spec?.acquireTime ?? '');
  if (!pv || !pvUid || !node || !Number.isFinite(since)) return undefined;
  const claim = a[ANN_NODE_GONE_CLAIM_TEMPLATE] === undefined ? undefined : parseClaimTemplate(a[ANN_NODE_GONE_CLAIM_TEMPLATE]);
  if (a[ANN_NODE_GONE_CLAIM_TEMPLATE] !== undefined && !claim) return undefined;
  const kept = a[ANN_NODE_GONE_KEPT] === undefined ? NaN : Date.parse(a[ANN_NODE_GONE_KEPT]);
  return {
    pv,
    pvUid,
    node,
    since: new Date(since),
    ...(claim ? { claim } : {}),
    ...(Number.isFinite(kept) ? { kept: new Date(kept) } : {}),
    lease,
  };
}

/** True when `rec` is about this very PV (same uid) pinned to `node`. */
export function recordMatches(rec: NodeGoneRecord, pv: PersistentVolume, node: string): boolean {
  return rec.pvUid === pv.metadata.uid && rec.node === node && rec.pv === pv.metadata.name;
}

/**
 * The records of this controller (`prefix` = its lease name), listed once when first needed and
 * then kept by its own writes: it is their only writer. A write that conflicts or finds nothing
 * means someone else wrote: the records are listed again before the next decision.
 */
export class NodeGoneRecords {
  private readonly byPv = new Map<string, NodeGoneRecord>();
  private loaded = false;

  constructor(
    private readonly api: Pick<ApiClient, 'listLeases' | 'createLease' | 'updateLease' | 'deleteLease'>,
    private readonly namespace: string,
    private readonly prefix: string,
    private readonly holder: string,
  ) {}

  /** The record of `pv` (by name; check it with recordMatches before acting on it). */
  async get(pv: string): Promise<NodeGoneRecord | undefined> {
    if (!this.loaded) await this.load();
    return this.byPv.get(pv);
  }

  async save(rec: NodeGoneRecord): Promise<NodeGoneRecord> {
    const lease = recordToLease(rec, this.namespace, this.prefix, this.holder);
    const stored = await this.guard(() => (rec.lease ? this.api.updateLease(lease) : this.api.createLease(lease)));
    const next = { ...rec, lease: stored };
    this.byPv.set(rec.pv, next);
    return next;
  }

  async remove(rec: NodeGoneRecord): Promise<void> {
    const lease = rec.lease;
    if (lease) {
      await this.guard(() => this.api.deleteLease(this.namespace, lease.metadata.name ?? '', lease.metadata.uid)).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    this.byPv.delete(rec.pv);
  }

  private async load(): Promise<void> {
    const leases = await this.api.listLeases(this.namespace, `${LABEL_NODE_GONE_RECORD}=true`);
    this.byPv.clear();
    for (const lease of leases) {
      const rec = leaseToRecord(lease);
      // Another controller's (another lease name) or not a whole record: not ours to act on.
      if (rec && lease.metadata.name === recordName(this.prefix, rec.pv)) this.byPv.set(rec.pv, rec);
    }
    this.loaded = true;
  }

  private async guard<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isConflict(err) || isNotFound(err) || isAlreadyExists(err)) this.loaded = false;
      throw err;
    }
  }
}
