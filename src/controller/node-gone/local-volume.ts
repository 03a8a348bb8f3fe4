/**
 * Which PVs the node-gone controller acts on, and the marks it keeps on them.
 *
 * In scope: the node-local volumes our host-path plugin makes — `provisioned-by` one of its two
 * provisioner names, a `local` or `hostPath` source, and node affinity of exactly one term
 * requiring `kubernetes.io/hostname In [<node>]` (the one shape the plugin writes). Their data
 * is on that node's disk only. Static PVs are left alone: nothing says their disk cannot be
 * moved to another node under the same name.
 *
 * The marks are annotations on the PV, so a restarted (or newly elected) controller resumes
 * where the last one stopped: the clock (`node-gone-since`), the claim to re-create
 * (`node-gone-claim`, written before the bound claim is deleted) and the Retain outcome
 * (`node-gone-kept`).
 */
import { ANN_NODE_GONE_CLAIM, ANN_NODE_GONE_KEPT, ANN_NODE_GONE_SINCE, ANN_PROVISIONED_BY, LABEL_HOSTNAME } from '../../kube/annotations.js';
import type { PersistentVolume } from '../../kube/types.js';
import { HOST_PATH_PROVISIONER, NODE_HOST_PATH_PROVISIONER } from '../../plugins/host-path/host-path-plugin.js';
import { parseClaimTemplate, type ClaimTemplate } from './claim-template.js';

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

export interface NodeGoneMarks {
  /** When this controller first saw the node gone; undefined when absent or unreadable. */
  since?: Date;
  claim?: ClaimTemplate;
  kept: boolean;
  /** Any of the three annotations is present (readable or not). */
  any: boolean;
}

const MARKS = [ANN_NODE_GONE_SINCE, ANN_NODE_GONE_CLAIM, ANN_NODE_GONE_KEPT];

export function readMarks(pv: PersistentVolume): NodeGoneMarks {
  const a = pv.metadata.annotations ?? {};
  const since = a[ANN_NODE_GONE_SINCE] === undefined ? NaN : Date.parse(a[ANN_NODE_GONE_SINCE]);
  const claim = a[ANN_NODE_GONE_CLAIM] === undefined ? undefined : parseClaimTemplate(a[ANN_NODE_GONE_CLAIM]);
  return {
    ...(Number.isFinite(since) ? { since: new Date(since) } : {}),
    ...(claim ? { claim } : {}),
    kept: a[ANN_NODE_GONE_KEPT] !== undefined,
    any: MARKS.some((m) => a[m] !== undefined),
  };
}

/** A copy of `pv` with the given marks set (a string) or removed (undefined). */
export function withMarks(pv: PersistentVolume, marks: Partial<Record<(typeof MARKS)[number], string | undefined>>): PersistentVolume {
  const next = structuredClone(pv);
  const annotations = { ...next.metadata.annotations };
  for (const [key, value] of Object.entries(marks)) {
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
  }
  next.metadata.annotations = annotations;
  return next;
}

/** A copy of `pv` with none of the marks. */
export function withoutMarks(pv: PersistentVolume): PersistentVolume {
  return withMarks(pv, Object.fromEntries(MARKS.map((m) => [m, undefined])));
}

/**
 * True while node-gone is replacing the PV's claim (the claim template is recorded): the volume
 * shows Released meanwhile, and the reclaimer leaves it alone, since its backing data is on a
 * node that is gone and the PV object is removed by node-gone itself.
 */
export function isReleasingForGoneNode(pv: PersistentVolume): boolean {
  return pv.metadata.annotations?.[ANN_NODE_GONE_CLAIM] !== undefined;
}
