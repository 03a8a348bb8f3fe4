/**
 * What a scenario's objects look like, projected onto what the differential compares and
 * normalised so two worlds' runs compare field by field: VolumeSnapshots (finalizers,
 * annotations, spec, readyToUse, restoreSize, bound content, error message), their contents
 * (finalizers, annotations, policy, source kind, reference, readiness, size, error), claims and
 * volumes (phase, size, mode, finalizers, annotations, data source), the events about any of them
 * (kind, name, type, reason, message), and how many snapshots the driver holds of the scenario's
 * volumes (ListSnapshots, asked of the driver). Uids become `<uid of Kind name>`, times `<time>`,
 * driver ids `<handle>`.
 */
import type { DriverSnapshot } from '../../../tools/chaos/csi-snapshot-invariant.js';
import type { ScenarioView, SnapshotScenario } from './scenarios.js';
import { CONTENTS, SNAPSHOTS } from './scenarios.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const meta = (o: Json): Json => obj(o.metadata);
const nameOf = (o: Json): string => String(meta(o).name ?? '');


/** What the recorder learns across polls: uids and driver handles stay known after their objects go. */
export class Names {
  readonly uids = new Map<string, string>();
  /** Driver volume id → scenario, from the PVs seen. */
  readonly volumeScenario = new Map<string, string>();
  /** Steps a scenario could not make (the server or a side refused them), by scenario. */
  readonly failedSteps = new Map<string, string[]>();

  learn(kind: string, o: Json): void {
    const uid = meta(o).uid;
    if (typeof uid === 'string') this.uids.set(uid, `<uid of ${kind} ${nameOf(o)}>`);
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export function normaliseText(s: string, names: Names): string {
  let out = s;
  for (const [uid, label] of names.uids) out = out.split(uid).join(label);
  return out
    .replace(UUID, '<uid>')
    // The mock's ids are decimal counters: where a message names one, its value is the order of the run.
    .replace(/\b(volume|snapshot|snapshot id|volume id|handle)( "?)\d+\b/gi, '$1$2<handle>');
}

function normalise(value: unknown, names: Names): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, names));
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = /Time(stamp)?$/.test(k) && typeof v === 'string' ? '<time>' : normalise(v, names);
    return out;
  }
  return typeof value === 'string' ? normaliseText(value, names) : value;
}

/** The metadata every view keeps: finalizers (sorted) and annotations. */
const kept = (o: Json): Json => ({ finalizers: [...((meta(o).finalizers as string[] | undefined) ?? [])].sort(), annotations: obj(meta(o).annotations) });
const present = (v: unknown): boolean | undefined => (v === undefined ? undefined : true);

function snapshotView(vs: Json): Json {
  const st = obj(vs.status);
  return {
    ...kept(vs),
    spec: vs.spec,
    status: {
      readyToUse: st.readyToUse,
      restoreSize: st.restoreSize,
      boundVolumeSnapshotContentName: st.boundVolumeSnapshotContentName,
      creationTime: present(st.creationTime),
      error: st.error === undefined ? undefined : obj(st.error).message,
    },
  };
}

function contentView(c: Json): Json {
  const spec = obj(c.spec);
  const st = obj(c.status);
  const source = obj(spec.source);
  return {
    ...kept(c),
    spec: {
      deletionPolicy: spec.deletionPolicy,
      driver: spec.driver,
      source: source.snapshotHandle !== undefined ? 'snapshotHandle' : source.volumeHandle !== undefined ? 'volumeHandle' : undefined,
      volumeSnapshotClassName: spec.volumeSnapshotClassName,
      volumeSnapshotRef: { namespace: obj(spec.volumeSnapshotRef).namespace, name: obj(spec.volumeSnapshotRef).name },
      sourceVolumeMode: spec.sourceVolumeMode,
    },
    status: {
      readyToUse: st.readyToUse,
      restoreSize: st.restoreSize,
      snapshotHandle: present(st.snapshotHandle),
      creationTime: present(st.creationTime),
      error: st.error === undefined ? undefined : obj(st.error).message,
    },
  };
}

function claimView(c: Json): Json {
  const spec = obj(c.spec);
  const st = obj(c.status);
  return {
    terminating: present(meta(c).deletionTimestamp),
    ...kept(c),
    spec: { dataSource: spec.dataSource, dataSourceRef: spec.dataSourceRef, resources: spec.resources, volumeMode: spec.volumeMode, volumeName: spec.volumeName },
    status: { phase: st.phase, capacity: st.capacity },
  };
}

function volumeView(pv: Json): Json {
  const spec = obj(pv.spec);
  return {
    ...kept(pv),
    spec: {
      capacity: spec.capacity,
      volumeMode: spec.volumeMode,
      accessModes: spec.accessModes,
      persistentVolumeReclaimPolicy: spec.persistentVolumeReclaimPolicy,
      storageClassName: spec.storageClassName,
      claimRef: obj(spec.claimRef).name,
      driver: obj(spec.csi).driver,
    },
    status: { phase: obj(pv.status).phase },
  };
}

function eventLine(e: Json): string {
  const ref = obj(e.involvedObject);
  return `${String(ref.kind)} ${String(ref.name)}: ${String(e.type)} ${String(e.reason)}: ${String(e.message)}`;
}

/** Everything the recorder reads of a world, once a poll. */
export interface WorldState {
  list: (path: string) => Promise<Json[]>;
  driverSnapshots: () => Promise<DriverSnapshot[]>;
}

export async function recordScenarios(world: WorldState, scenarios: SnapshotScenario[], names: Names): Promise<Map<string, ScenarioView>> {
  const [contents, pvs, events, held] = await Promise.all([world.list(CONTENTS), world.list('/api/v1/persistentvolumes'), world.list('/api/v1/events'), world.driverSnapshots()]);
  const out = new Map<string, ScenarioView>();
  for (const sc of scenarios) {
    const [snaps, claims] = await Promise.all([world.list(SNAPSHOTS(sc.id)), world.list(`/api/v1/namespaces/${sc.id}/persistentvolumeclaims`)]);
    snaps.forEach((o) => names.learn('VolumeSnapshot', o));
    claims.forEach((o) => names.learn('PersistentVolumeClaim', o));
    const mineContents = contents.filter((c) => obj(obj(c.spec).volumeSnapshotRef).namespace === sc.id);
    const minePvs = pvs.filter((pv) => obj(obj(pv.spec).claimRef).namespace === sc.id);
    for (const pv of minePvs) {
      const handle = obj(obj(pv.spec).csi).volumeHandle;
      if (typeof handle === 'string') names.volumeScenario.set(handle, sc.id);
    }
    const about = new Set([...mineContents, ...minePvs].map(nameOf));
    const mineEvents = events.filter((e) => {
      const ref = obj(e.involvedObject);
      return ref.namespace === sc.id || about.has(String(ref.name));
    });
    const view: ScenarioView = {
      snapshots: Object.fromEntries(snaps.map((o) => [nameOf(o), normalise(snapshotView(o), names) as Json])),
      contents: Object.fromEntries(mineContents.map((o) => [normaliseText(nameOf(o), names), normalise(contentView(o), names) as Json])),
      claims: Object.fromEntries(claims.map((o) => [nameOf(o), normalise(claimView(o), names) as Json])),
      volumes: Object.fromEntries(minePvs.map((o) => [normaliseText(nameOf(o), names), normalise(volumeView(o), names) as Json])),
      events: [...new Set(mineEvents.map((e) => normaliseText(eventLine(e), names)))].sort(),
      driverSnapshots: held.filter((d) => names.volumeScenario.get(d.sourceVolumeId) === sc.id).length,
      failedSteps: (names.failedSteps.get(sc.id) ?? []).map((t) => normaliseText(t, names)),
    };
    out.set(sc.id, view);
  }
  return out;
}
