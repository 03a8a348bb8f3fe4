/**
 * CreateVolume's accessibility requirements and the PV's node affinity, as external-provisioner
 * v6 builds them (GenerateAccessibilityRequirements, GenerateVolumeNodeAffinity):
 * - requisite: with strict topology and a selected node, that node's segment only; else the
 *   class's allowedTopologies flattened into one segment per combination; else every segment of
 *   the cluster having the selected node's keys (or every segment at all for immediate binding);
 * - preferred: the requisite rotated so the selected node's segment comes first, or, without a
 *   selected node, rotated by a hash of the claim name (spreading a StatefulSet's volumes).
 */
import type { TopologySelectorTerm, VolumeNodeAffinity } from '@pv-controller/kube/types.js';
import type { CsiSegments, CsiTopologyRequirement } from '../../csi/types.js';
import { PluginError } from '../api/errors.js';

/** The cluster's topology for one driver (CSINode topologyKeys and Node labels). */
export interface CsiTopologySource {
  /** The driver's topology segment of one node; undefined when the node has no CSINode entry for the driver. */
  nodeSegment(driver: string, nodeName: string): Promise<Record<string, string> | undefined>;
  /** Every distinct segment of every node running the driver (for non-WaitForFirstConsumer classes). */
  allSegments(driver: string): Promise<Array<Record<string, string>>>;
}

/** A segment as sorted key/value pairs, so that terms compare and deduplicate. */
type Term = Array<[string, string]>;

function termOf(segment: CsiSegments): Term {
  return Object.entries(segment).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function compareTerms(a: Term, b: Term): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    for (const j of [0, 1] as const) if (a[i][j] !== b[i][j]) return a[i][j] < b[i][j] ? -1 : 1;
  }
  return 0;
}

/** Every pair of `term` is in `segment`. */
function isSubset(term: Term, segment: CsiSegments): boolean {
  return term.every(([k, v]) => segment[k] === v);
}

/** allowedTopologies distributed into terms: OR of terms, AND of expressions, OR of values. */
export function flattenAllowedTopologies(allowed: readonly TopologySelectorTerm[]): Term[] {
  const out: Term[] = [];
  for (const selector of allowed) {
    let terms: Term[] = [];
    for (const expr of selector.matchLabelExpressions ?? []) {
      const next: Term[] = [];
      for (const value of expr.values) {
        if (terms.length === 0) next.push([[expr.key, value]]);
        else for (const t of terms) next.push([...t, [expr.key, value]]);
      }
      terms = next;
    }
    out.push(...terms.map((t) => termOf(Object.fromEntries(t))));
  }
  return out;
}

/** Go's hash/fnv New32 (FNV-1, 32 bits) of a UTF-8 string. */
function fnv1(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) h = (Math.imul(h, 0x01000193) ^ byte) >>> 0;
  return h;
}

/** external-provisioner's StatefulSet spreading: hash of the set's name part and the replica index. */
export function claimSpreadOffset(claimName: string): number {
  let hashed = claimName;
  let index = 0;
  const lastDash = claimName.lastIndexOf('-');
  if (lastDash >= 0 && /^\d+$/.test(claimName.slice(lastDash + 1))) {
    const id = Number(claimName.slice(lastDash + 1));
    if (id <= 0xffffffff) {
      index = id;
      hashed = claimName.slice(0, lastDash);
      const dash = hashed.lastIndexOf('-');
      if (dash >= 0) hashed = hashed.slice(dash + 1);
    }
  }
  return (fnv1(hashed) + index) >>> 0;
}

export interface AccessibilityInput {
  driver: string;
  claimName: string;
  selectedNode?: string;
  allowedTopologies?: readonly TopologySelectorTerm[];
  strict: boolean;
  /** external-provisioner's `--immediate-topology` (default true): without a selected node, still send every segment. */
  immediate: boolean;
}

function sameKeys(a: CsiSegments, b: CsiSegments): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

async function requisiteTerms(src: CsiTopologySource, input: AccessibilityInput, selected: CsiSegments | undefined): Promise<Term[] | undefined> {
  const allowed = flattenAllowedTopologies(input.allowedTopologies ?? []);
  if (selected && input.strict) {
    if (allowed.length > 0 && !allowed.some((t) => isSubset(t, selected))) {
      throw new PluginError('InvalidParameter', `the topology of node "${input.selectedNode}" is not in the class's allowedTopologies`, false);
    }
    return [termOf(selected)];
  }
  if (allowed.length > 0) return allowed;
  if (!selected && !input.immediate) return undefined;
  const segments = (await src.allSegments(input.driver)).filter((s) => !selected || sameKeys(s, selected));
  if (segments.length === 0) throw new PluginError('Transient', `no node runs driver ${input.driver} with topology yet`, true);
  return segments.map(termOf);
}

/** The requirement, or undefined where external-provisioner sends none. */
export async function accessibilityRequirements(src: CsiTopologySource, input: AccessibilityInput): Promise<CsiTopologyRequirement | undefined> {
  let selected: CsiSegments | undefined;
  if (input.selectedNode) {
    selected = await src.nodeSegment(input.driver, input.selectedNode);
    if (!selected || Object.keys(selected).length === 0) {
      throw new PluginError('Transient', `node "${input.selectedNode}" has no topology for driver ${input.driver} (no CSINode entry yet)`, true);
    }
  }
  const found = await requisiteTerms(src, input, selected);
  if (!found || found.length === 0) return undefined;
  const terms = found.sort(compareTerms).filter((t, i, all) => i === 0 || compareTerms(all[i - 1], t) !== 0);
  let preferred: Term[];
  if (!selected) {
    const i = claimSpreadOffset(input.claimName) % terms.length;
    preferred = [...terms.slice(i), ...terms.slice(0, i)];
  } else if (input.strict) {
    preferred = terms;
  } else {
    const i = terms.findIndex((t) => isSubset(t, selected));
    if (i < 0) throw new PluginError('InvalidParameter', `the topology of node "${input.selectedNode}" is not among the requisite segments`, false);
    preferred = [...terms.slice(i), ...terms.slice(0, i)];
  }
  const toSegments = (ts: Term[]): CsiSegments[] => ts.map((t) => Object.fromEntries(t));
  return { requisite: toSegments(terms), preferred: toSegments(preferred) };
}

/** One node-selector term per accessible segment (an OR of segments, each an AND of its labels). */
export function nodeAffinityOf(accessible: readonly CsiSegments[]): VolumeNodeAffinity | undefined {
  const terms = accessible
    .filter((s) => Object.keys(s).length > 0)
    .map((s) => ({ matchExpressions: termOf(s).map(([key, value]) => ({ key, operator: 'In' as const, values: [value] })) }));
  return terms.length === 0 ? undefined : { required: { nodeSelectorTerms: terms } };
}
