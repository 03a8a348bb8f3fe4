/**
 * Which PVs the node-gone controller acts on, and the one mark it leaves on them.
 *
 * In scope: the node-local volumes our host-path plugin makes — `provisioned-by` one of its two
 * provisioner names, a `local` or `hostPath` source, and node affinity of exactly one term
 * requiring `kubernetes.io/hostname In [<node>]` (the one shape the plugin writes). Their data
 * is on that node's disk only. Static PVs are left alone: nothing says their disk cannot be
 * moved to another node under the same name. (`provisioned-by` is a hint: whoever may write PVs
 * can put it on any PV, so nothing destructive rests on it alone — record.ts says what does.)
 *
 * The state node-gone acts on is in its records (record.ts), never on the PV. The PV carries only
 * `node-gone-claim` while its claim is being replaced: the reclaimer's reason to leave the volume
 * alone, which can only ever keep data, never delete it.
 */
import { ANN_NODE_GONE_CLAIM, ANN_PROVISIONED_BY, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER, NODE_HOST_PATH_PROVISIONER } from '../../plugins/host-path/host-path-plugin.js';

const LOCAL_PROVISIONERS: readonly string[] = [NODE_HOST_PATH_PROVISIONER, HOST_PATH_PROVISIONER];

/** The node a node-local PV of ours is pinned to; undefined for every other PV. */
export function localNodeOf(pv: PersistentVolume): string | undefined {
  const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
  if (provisioner === undefined || !LOCAL_PROVISIONERS.includes(provisioner)) return undefined;
  if (pv.spec.local === undefined && pv.spec.hostPath === undefined) return undefined;
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  if (terms.length !== 1 || (terms[0].matchFields ?? []).length > 0) return undefined;
  const expressions = terms[0].matchExpressions ?? [];
  if (expressions.length !== 1) return undefined;
  const [e] = expressions;
  const node = e.values?.length === 1 ? e.values[0] : undefined;
  return e.key === LABEL_HOSTNAME && e.operator === 'In' && node ? node : undefined;
}

/** A copy of `pv` saying its claim `claimKey` is being replaced (undefined: not any more). */
export function withReplacingMark(pv: PersistentVolume, claimKey: string | undefined): PersistentVolume {
  const next = structuredClone(pv);
  const annotations = { ...next.metadata.annotations };
  if (claimKey === undefined) delete annotations[ANN_NODE_GONE_CLAIM];
  else annotations[ANN_NODE_GONE_CLAIM] = claimKey;
  next.metadata.annotations = annotations;
  return next;
}

/**
 * True while node-gone is replacing the PV's claim: the volume shows Released meanwhile, and the
 * reclaimer leaves it alone, since its backing data is on a node that is gone and the PV object is
 * removed by node-gone itself. Read from the PV: anyone who may write PVs can set it, and all it
 * can do is keep a volume's data.
 */
export function isReleasingForGoneNode(pv: PersistentVolume): boolean {
  return pv.metadata.annotations?.[ANN_NODE_GONE_CLAIM] !== undefined;
}
