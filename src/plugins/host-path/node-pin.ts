/**
 * Which node label a node agent's local PVs are pinned by. By default `kubernetes.io/hostname`:
 * the volume belongs to this node. An admin may choose another label (agent flag
 * `--node-affinity-label`, class parameter `nodeAffinityLabel`) whose value outlives the node —
 * a disk, rack or slot label — so a replacement node that carries the same value (and the same
 * disk) serves the volume again (local-path-provisioner#215). The value is this node's own label,
 * read from its Node object when the agent starts; a node without the label cannot provision for
 * such a class (refused, retried: the label may be added).
 *
 * Several nodes may carry the value, so being pinned by a label is not proof that the volume is
 * here: delete, recycle and grow act on a label-pinned volume only when its record is on this
 * node's roots, and otherwise refuse (retried), leaving it to the node that holds it — never
 * "done" for a directory that is elsewhere.
 */
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import type { PersistentVolume, VolumeNodeAffinity } from '@pv-controller/kube/types.js';
import { PluginError } from '../api/errors.js';
import { findRecords } from '../fs-common/directory-volume.js';

export const NODE_AFFINITY_LABEL_PARAMETER = 'nodeAffinityLabel';

export interface NodePin {
  nodeName: string;
  /** The node's labels, read when the agent started. */
  labels: Readonly<Record<string, string>>;
  /** The agent's default label key (`--node-affinity-label`). */
  key: string;
}

/** The pin of a plugin serving `nodeName` (none without one); throws for a key that is not a label key. */
export function makePin(nodeName: string | undefined, labels: Record<string, string> | undefined, key: string | undefined): NodePin | undefined {
  const problem = key === undefined ? undefined : labelKeyProblem(key);
  if (problem) throw new PluginError('InvalidParameter', `node affinity label: ${problem}`, false);
  return nodeName === undefined ? undefined : { nodeName, labels: labels ?? {}, key: key ?? LABEL_HOSTNAME };
}

/** The node affinity of a new volume of a class: none without a node; else the class's (or the agent's) label with this node's value. */
export function affinityOf(pin: NodePin | undefined, parameters: Record<string, string>): { nodeAffinity?: VolumeNodeAffinity } {
  if (!pin) return {};
  const { key, value } = pinFor(pin, parameters);
  return affinityFor(key, value);
}

export function isPinnedHere(pv: PersistentVolume, pin: NodePin | undefined): boolean {
  return pin !== undefined && pinnedHere(pv, pin) !== undefined;
}

/** Why a label key cannot pin volumes, or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length > 0 ? `"${key}" is not a label key: ${errs.join('; ')}` : undefined;
}

/** The (key, value) a new volume of a class is pinned by on this node. */
export function pinFor(pin: NodePin, parameters: Record<string, string>): { key: string; value: string } {
  const key = parameters[NODE_AFFINITY_LABEL_PARAMETER] ?? pin.key;
  if (key === LABEL_HOSTNAME) return { key, value: pin.labels[key] ?? pin.nodeName };
  const value = Object.hasOwn(pin.labels, key) ? pin.labels[key] : undefined;
  if (value === undefined || value === '') {
    throw new PluginError('Backend', `node "${pin.nodeName}" has no label "${key}" to pin the volume by (nodeAffinityLabel); label the node and restart its agent`, true);
  }
  return { key, value };
}

export function affinityFor(key: string, value: string): { nodeAffinity: VolumeNodeAffinity } {
  return { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: [value] }] }] } } };
}

/** The one `key In [value]` a PV is pinned by (the only shape our local PVs have), or undefined. */
function pinOf(pv: PersistentVolume): { key: string; value: string } | undefined {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const expressions = terms[0]?.matchExpressions ?? [];
  const e = expressions.length === 1 ? expressions[0] : undefined;
  if (!e || e.operator !== 'In' || e.values?.length !== 1) return undefined;
  return { key: e.key, value: e.values[0]! };
}

/**
 * How a PV is pinned to this node: by its hostname, by another label this node carries with the
 * same value, or not at all.
 */
export function pinnedHere(pv: PersistentVolume, pin: NodePin): 'hostname' | 'label' | undefined {
  const p = pinOf(pv);
  if (!p) return undefined;
  if (p.key === LABEL_HOSTNAME) return p.value === pin.nodeName ? 'hostname' : undefined;
  return Object.hasOwn(pin.labels, p.key) && pin.labels[p.key] === p.value ? 'label' : undefined;
}

/** Refuses (retryably) to act on a label-pinned volume whose record is not on this node's roots. */
export async function assertHeldHere(roots: readonly string[], pv: PersistentVolume, backingName: string, pin: NodePin | undefined): Promise<void> {
  if (!pin || pinnedHere(pv, pin) !== 'label') return;
  if ((await findRecords([...roots], backingName)).length > 0) return;
  const p = pinOf(pv);
  throw new PluginError(
    'Backend',
    `PV "${pv.metadata.name}" is pinned by ${p?.key}=${p?.value}, which node "${pin.nodeName}" carries, but its volume is not on this node's roots: left to the node that holds it`,
    true,
  );
}
