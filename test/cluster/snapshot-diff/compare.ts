/**
 * The comparison of two sides' views of a scenario (field by field, events as set members, as
 * the controller differential compares), and the one-line summaries of each object the
 * side-by-side table shows.
 */
import { stateDifferences } from '../controller-diff/snapshot.js';
import type { ScenarioView } from './scenarios.js';

type Json = Record<string, unknown>;

export interface ViewDifference {
  /** 1-based: the view after which stage. */
  stage: number;
  path: string;
  upstream: unknown;
  ours: unknown;
}

/** Differences of two sides' views after each stage. */
export function viewDifferences(upstream: ScenarioView[] | undefined, ours: ScenarioView[] | undefined): ViewDifference[] {
  const stages = Math.max(upstream?.length ?? 0, ours?.length ?? 0);
  const out: ViewDifference[] = [];
  for (let i = 0; i < stages; i++) {
    for (const d of stateDifferences(upstream?.[i], ours?.[i])) out.push({ stage: i + 1, path: d.path, upstream: d.kcm, ours: d.ours });
  }
  return out;
}

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): string => (Array.isArray(v) && v.length > 0 ? v.map((f) => String(f).replace(/^.*\//, '')).join(' ') : '-');

function statusLine(o: Json, keys: string[]): string {
  const st = obj(o.status);
  return keys.filter((k) => st[k] !== undefined).map((k) => `${k}=${typeof st[k] === 'string' ? String(st[k]) : JSON.stringify(st[k])}`).join(', ');
}

/** One row per object of the view: `[object, summary]`, in a fixed order; and the driver's count and the events. */
export function summaryRows(v: ScenarioView | undefined): Map<string, string> {
  const rows = new Map<string, string>();
  if (!v) return rows;
  for (const [n, o] of Object.entries(v.snapshots)) rows.set(`VolumeSnapshot ${n}`, `${statusLine(o, ['readyToUse', 'restoreSize', 'boundVolumeSnapshotContentName', 'error'])}; finalizers ${list(o.finalizers)}`);
  for (const [n, o] of Object.entries(v.contents)) rows.set(`VolumeSnapshotContent ${n}`, `${statusLine(o, ['readyToUse', 'restoreSize', 'error'])}; policy ${String(obj(o.spec).deletionPolicy)}; finalizers ${list(o.finalizers)}`);
  for (const [n, o] of Object.entries(v.claims)) rows.set(`PVC ${n}`, `${statusLine(o, ['phase'])} ${JSON.stringify(obj(obj(o.status).capacity).storage ?? '')}${o.terminating ? ' terminating' : ''}; finalizers ${list(o.finalizers)}`);
  for (const [n, o] of Object.entries(v.volumes)) rows.set(`PV ${n}`, `${statusLine(o, ['phase'])} ${String(obj(obj(o.spec).capacity).storage ?? '')} ${String(obj(o.spec).volumeMode ?? '')}; finalizers ${list(o.finalizers)}`);
  rows.set('driver snapshots', String(v.driverSnapshots));
  v.failedSteps.forEach((f, i) => rows.set(`failed step ${i + 1}`, f));
  for (const e of v.events) {
    // "Kind name: Type Reason: message": keyed by all but the message, so both sides' rows align.
    const m = /^(.*?: \S+ \S+): ([\s\S]*)$/.exec(e);
    let key = `event ${m?.[1] ?? e}`;
    while (rows.has(key)) key += ' +';
    rows.set(key, m?.[2] ?? '');
  }
  return rows;
}
