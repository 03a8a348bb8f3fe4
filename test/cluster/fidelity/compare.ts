/**
 * Field-by-field comparison of two normalised outcomes, a case's view of its answer (discovery
 * and OpenAPI keep only what we serve), and the one-line summary a report shows for a mismatch.
 */
import type { View } from './case.js';

/** An outcome after normalisation: kubectl output as lists of lines, markers in place of ids. */
export interface Normalised {
  setup: unknown[];
  answer: Record<string, unknown>;
}

export interface Difference {
  /** Dotted path from the outcome root: `answer.body.spec.volumeMode`, `setup.0`. */
  path: string;
  real: unknown;
  ours: unknown;
}

const ABSENT = Symbol('absent');

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Printed output line by line, aligned on the longest common subsequence so that one extra line
 * shows as one difference, not as every line after it. A line replaced by another is one entry.
 */
function lineDifferences(real: string[], ours: string[], path: string): Difference[] {
  const common: number[][] = Array.from({ length: real.length + 1 }, () => new Array<number>(ours.length + 1).fill(0));
  for (let i = real.length - 1; i >= 0; i--) {
    for (let j = ours.length - 1; j >= 0; j--) {
      common[i][j] = real[i] === ours[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const out: Difference[] = [];
  /** Unmatched lines since the last match, each with the real line number it stands at. */
  const gone: Array<[number, string]> = [];
  const added: Array<[number, string]> = [];
  const flush = (): void => {
    for (let k = 0; k < Math.max(gone.length, added.length); k++) {
      const at = gone[k]?.[0] ?? added[k][0];
      out.push({ path: `${path}.${at}`.replace(/^\./, ''), real: gone[k]?.[1], ours: added[k]?.[1] });
    }
    gone.length = 0;
    added.length = 0;
  };
  let i = 0;
  let j = 0;
  while (i < real.length || j < ours.length) {
    if (i < real.length && j < ours.length && real[i] === ours[j]) {
      flush();
      i++;
      j++;
    } else if (j >= ours.length || (i < real.length && common[i + 1][j] >= common[i][j + 1])) {
      gone.push([i, real[i]]);
      i++;
    } else {
      added.push([i, ours[j]]);
      j++;
    }
  }
  flush();
  return out;
}

const isLines = (v: unknown[]): v is string[] => v.every((x) => typeof x === 'string');

export function differences(real: unknown, ours: unknown, path = ''): Difference[] {
  if (Array.isArray(real) && Array.isArray(ours) && /\.(stdout|stderr)$/.test(path) && isLines(real) && isLines(ours)) {
    return lineDifferences(real, ours, path);
  }
  if (Array.isArray(real) && Array.isArray(ours)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(real.length, ours.length); i++) {
      out.push(...differences(i < real.length ? real[i] : ABSENT, i < ours.length ? ours[i] : ABSENT, `${path}.${i}`));
    }
    return out;
  }
  if (isObject(real) && isObject(ours)) {
    const keys = [...new Set([...Object.keys(real), ...Object.keys(ours)])];
    return keys.flatMap((k) => differences(k in real ? real[k] : ABSENT, k in ours ? ours[k] : ABSENT, `${path}.${k}`));
  }
  // An object one side lacks is compared field by field with an empty one, so each missing
  // default shows on its own path; an empty object one side lacks still shows as a whole.
  if ((isObject(real) && ours === ABSENT) || (real === ABSENT && isObject(ours))) {
    const inner = differences(isObject(real) ? real : {}, isObject(ours) ? ours : {}, path);
    if (inner.length > 0) return inner.map((d) => ({ ...d, real: real === ABSENT ? undefined : d.real, ours: ours === ABSENT ? undefined : d.ours }));
  }
  if (real === ours) return [];
  return [{ path: path.replace(/^\./, ''), real: real === ABSENT ? undefined : real, ours: ours === ABSENT ? undefined : ours }];
}

function typeOf(v: unknown): string {
  if (v === undefined) return 'absent';
  if (Array.isArray(v)) return 'array';
  return v === null ? 'null' : typeof v;
}

function at(body: unknown, keys: string[]): unknown {
  let cur = body;
  for (const k of keys) cur = isObject(cur) ? cur[k] : undefined;
  return cur;
}

function byName(list: unknown, names: string[]): unknown[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((e) => isObject(e) && names.includes(String(e.name)))
    .sort((a, b) => String((a as { name: string }).name).localeCompare(String((b as { name: string }).name)));
}

/** The part of a body a view compares. */
function viewOf(body: unknown, view: View): unknown {
  switch (view.kind) {
    case 'resources':
      return isObject(body) ? { ...body, resources: byName(body.resources, view.names) } : body;
    case 'groups':
      return isObject(body) ? { ...body, groups: byName(body.groups, view.names) } : body;
    case 'shape':
      return Object.fromEntries(view.paths.map((p) => [p, typeOf(at(body, p.split(' ')))]));
    case 'values':
      return Object.fromEntries(view.paths.map((p) => [p, at(body, p.split(' ')) ?? 'absent']));
    case 'lines': {
      const re = new RegExp(view.match);
      return Array.isArray(body) ? body.filter((l) => re.test(String(l))) : body;
    }
  }
}

export function applyView(outcome: Normalised, view: View | undefined): Normalised {
  if (!view) return outcome;
  const a = outcome.answer;
  if ('body' in a) return { ...outcome, answer: { ...a, body: viewOf(a.body, view) } };
  if ('stdout' in a) return { ...outcome, answer: { ...a, stdout: viewOf(a.stdout, view) } };
  return outcome;
}

function show(v: unknown): string {
  if (v === undefined) return 'absent';
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > 90 ? `${s.slice(0, 87)}...` : s;
}

function statusLine(o: Normalised): string {
  const a = o.answer;
  if ('error' in a) return String(a.error);
  if ('exitCode' in a) return `exit ${a.exitCode}${firstLine(a.stderr)}`;
  const b = a.body as { reason?: string; message?: string } | undefined;
  const reason = isObject(b) && b.reason ? ` ${b.reason}` : '';
  const message = isObject(b) && typeof b.message === 'string' ? `: ${show(b.message)}` : '';
  return `${a.status}${reason}${message}`;
}

/** One line: the answer's status when it differs, else the first differing fields. */
function firstLine(lines: unknown): string {
  const first = Array.isArray(lines) ? lines.find((l) => String(l).trim() !== '') : undefined;
  return first === undefined ? '' : `: ${show(first)}`;
}

export function summarise(diffs: Difference[], real: Normalised, ours: Normalised): string {
  const statusDiffers = diffs.some((d) => d.path === 'answer.status' || d.path === 'answer.exitCode' || d.path.startsWith('answer.error'));
  if (statusDiffers) return `real ${statusLine(real)} / ours ${statusLine(ours)}`;
  const shown = diffs.slice(0, 3).map((d) => `${d.path.replace(/^answer\./, '')}: real ${show(d.real)} / ours ${show(d.ours)}`);
  const more = diffs.length > 3 ? ` (+${diffs.length - 3} more)` : '';
  return `${shown.join('; ')}${more}`;
}
