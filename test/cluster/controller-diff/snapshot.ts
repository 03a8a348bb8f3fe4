/**
 * What a scenario converged to, normalised so two controllers' runs compare field by field:
 * identities, times and resourceVersions out; provisioned names and paths as placeholders; events
 * as the set of (object, type, reason, message), whatever their counts.
 */
import { isDeepStrictEqual } from 'node:util';
import type { TargetClient } from '../fidelity/http.js';
import type { Scenario } from './scenarios.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ScenarioState {
  volumes: Record<string, unknown>;
  claims: Record<string, unknown>;
  events: string[];
}

async function items(client: TargetClient, path: string): Promise<Json[]> {
  const answer = await client.send({ method: 'GET', path });
  if (answer.status !== 200 || !isObject(answer.body)) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return (answer.body.items as Json[]) ?? [];
}

const META_DROPPED = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'selfLink'];

/** Every time is "<time>"; the claim uids in provisioned names become the claim's name. */
function normalise(value: unknown, names: Map<string, string>, root: string): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, names, root));
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (/Time(stamp)?$/.test(k) && typeof v === 'string') out[k] = '<time>';
      else out[k] = normalise(v, names, root);
    }
    return out;
  }
  if (typeof value !== 'string') return value;
  let s = value;
  for (const [uid, name] of names) s = s.split(uid).join(name);
  // A provisioned volume outlives its claim: its name keeps a uid no claim in the list has.
  s = s.replace(/pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'pvc-<uid of a deleted claim>');
  if (s.startsWith('/tmp/hostpath_pv/') || (s.startsWith(`${root}/`) && s.includes('dynamic'))) return '<provisioned path>';
  return s.split(root).join('{root}');
}

function object(o: Json, names: Map<string, string>, root: string): unknown {
  const meta = { ...(o.metadata as Json) };
  for (const k of META_DROPPED) delete meta[k];
  if (Array.isArray(meta.finalizers)) meta.finalizers = [...(meta.finalizers as string[])].sort();
  const spec = isObject(o.spec) ? { ...o.spec } : o.spec;
  if (isObject(spec) && isObject(spec.claimRef)) {
    const { uid: _u, resourceVersion: _r, ...ref } = spec.claimRef;
    spec.claimRef = ref;
  }
  return normalise({ metadata: meta, spec, status: o.status }, names, root);
}

function eventLine(e: Json, names: Map<string, string>, root: string): string {
  const ref = (e.involvedObject ?? {}) as Json;
  const text = `${String(ref.kind)} ${String(ref.namespace ?? '')}/${String(ref.name)}: ${String(e.type)} ${String(e.reason)}: ${String(e.message)}`;
  return normalise(text, names, root) as string;
}

/** The state of every scenario: its volumes (by name prefix or claimRef), claims and events. */
export async function snapshot(client: TargetClient, scenarios: Scenario[], root: string): Promise<Map<string, ScenarioState>> {
  const [pvs, events] = await Promise.all([items(client, '/api/v1/persistentvolumes'), items(client, '/api/v1/events')]);
  const out = new Map<string, ScenarioState>();
  for (const sc of scenarios) {
    const claims = await items(client, `/api/v1/namespaces/${sc.id}/persistentvolumeclaims`);
    const names = new Map(claims.map((c) => [String((c.metadata as Json).uid), `<uid of ${String((c.metadata as Json).name)}>`]));
    const mine = pvs.filter((pv) => {
      const name = String((pv.metadata as Json).name);
      const ref = isObject(pv.spec) && isObject(pv.spec.claimRef) ? pv.spec.claimRef : undefined;
      return name.startsWith(`${sc.id}-`) || ref?.namespace === sc.id;
    });
    const volumeNames = new Set(mine.map((pv) => String((pv.metadata as Json).name)));
    const about = events.filter((e) => {
      const ref = (e.involvedObject ?? {}) as Json;
      return ref.namespace === sc.id || (ref.kind === 'PersistentVolume' && volumeNames.has(String(ref.name)));
    });
    const state: ScenarioState = { volumes: {}, claims: {}, events: [...new Set(about.map((e) => eventLine(e, names, root)))].sort() };
    for (const pv of mine) state.volumes[normalise(String((pv.metadata as Json).name), names, root) as string] = object(pv, names, root);
    for (const c of claims) state.claims[String((c.metadata as Json).name)] = object(c, names, root);
    out.set(sc.id, state);
  }
  return out;
}

/** Each claim's Unused condition lastTransitionTime, as the server has it, by "<scenario>/<claim>". */
export async function unusedTransitionTimes(client: TargetClient, scenarios: Scenario[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const sc of scenarios) {
    for (const c of await items(client, `/api/v1/namespaces/${sc.id}/persistentvolumeclaims`)) {
      const conditions = isObject(c.status) && Array.isArray(c.status.conditions) ? (c.status.conditions as Json[]) : [];
      const unused = conditions.find((x) => x.type === 'Unused');
      if (unused && typeof unused.lastTransitionTime === 'string') out.set(`${sc.id}/${String((c.metadata as Json).name)}`, unused.lastTransitionTime);
    }
  }
  return out;
}

/**
 * Where a claim's Unused condition went back in time between two reads (or lost its time): a
 * transition is stamped when it is seen, so a later one can never be earlier.
 */
export function unusedTimesOutOfOrder(before: Map<string, string>, after: Map<string, string>, keys: (key: string) => boolean): string[] {
  const problems: string[] = [];
  for (const [key, first] of before) {
    if (!keys(key)) continue;
    const last = after.get(key);
    if (last === undefined) problems.push(`${key}: Unused lastTransitionTime ${first} then absent`);
    else if (Date.parse(last) < Date.parse(first)) problems.push(`${key}: Unused lastTransitionTime ${first} then ${last}`);
  }
  return problems;
}

export interface StateDifference {
  path: string;
  kcm: unknown;
  ours: unknown;
}

/** Field-by-field differences of two states ("volumes.pv-a.spec.claimRef.name"); events as set members. */
export function stateDifferences(kcm: unknown, ours: unknown, path = ''): StateDifference[] {
  if (isDeepStrictEqual(kcm, ours)) return [];
  if (Array.isArray(kcm) && Array.isArray(ours) && path.endsWith('events')) {
    return [
      ...kcm.filter((e) => !ours.includes(e)).map((e) => ({ path, kcm: e, ours: undefined })),
      ...ours.filter((e) => !kcm.includes(e)).map((e) => ({ path, kcm: undefined, ours: e })),
    ];
  }
  if (isObject(kcm) && isObject(ours)) {
    const keys = [...new Set([...Object.keys(kcm), ...Object.keys(ours)])].sort();
    return keys.flatMap((k) => stateDifferences(kcm[k], ours[k], path ? `${path}.${k}` : k));
  }
  return [{ path, kcm, ours }];
}
