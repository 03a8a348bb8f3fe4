/**
 * What may differ between two correct servers is replaced by a marker before comparing: uids
 * (numbered in order of appearance, so "the same uid twice" still shows), resourceVersions,
 * timestamps, continue tokens, generated name suffixes, server addresses, temp paths, the
 * ClusterIPs both servers pick at random from the dynamic band of 10.0.0.0/24, the order of a
 * rules review's rules and, in printed output, ages and column padding. managedFields stay (only their times are masked):
 * their presence is a real difference.
 */
import type { Normalised } from './compare.js';
import type { Outcome } from './replay.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const RFC3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
const SERVER = /https:\/\/127\.0\.0\.1:\d+/g;
/** "too old resource version: 1 (345)", "the ResourceVersion in the precondition (507)" and similar. */
const RV_IN_TEXT = /(resource ?version\b[^\d\n"]{0,30}?)\d+( \(\d+\))?/gi;

/** Rules for printed output only (kubectl): dates as `describe` and `diff` print them, ages, temp paths. */
const TEXT_RULES: Array<[RegExp, string]> = [
  [/\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\b/g, '<time>'],
  [/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4}/g, '<time>'],
  [/"?resourceVersion"?: "\d+"/g, 'resourceVersion: "<rv>"'],
  [/\/tmp\/[\w.\-/]+/g, '<tmp>'],
  [/(?<![\w.-])(\d+[smhd]){1,2}(?![\w.-])/g, '<age>'],
];

const AGE_CELL = /^((\d+[smhd]){1,2}|<invalid>)$/;

export class Normaliser {
  private readonly uids = new Map<string, string>();

  private uid(u: string): string {
    let mark = this.uids.get(u);
    if (!mark) {
      mark = `<uid-${this.uids.size + 1}>`;
      this.uids.set(u, mark);
    }
    return mark;
  }

  string(s: string): string {
    return s
      .replace(UUID, (u) => this.uid(u))
      .replace(RFC3339, '<time>')
      .replace(SERVER, '<server>')
      .replace(RV_IN_TEXT, (_m, lead: string, old?: string) => `${lead}<rv>${old ? ' (<rv>)' : ''}`);
  }

  /** Printed output: the JSON rules, the printing rules, and whitespace runs as one space. */
  text(s: string): string {
    let out = this.string(s);
    for (const [re, mark] of TEXT_RULES) out = out.replace(re, mark);
    return out
      .split('\n')
      .map((line) => line.replace(/[ \t]+/g, ' ').trimEnd())
      .join('\n');
  }

  value(v: unknown, key = ''): unknown {
    if (typeof v === 'string') return this.scalar(key, v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') return this.object(v as Record<string, unknown>);
    return v;
  }

  private scalar(key: string, v: string): string {
    if (v === '') return v;
    if (key === 'resourceVersion') return '<rv>';
    if (key === 'continue') return '<continue>';
    // kube-apiserver advertises its --advertise-address here, we the address clients reached.
    if (key === 'serverAddress') return '<address>';
    return this.string(v);
  }

  private object(o: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = this.value(x, k);
    const gen = o.generateName;
    if (typeof gen === 'string' && typeof o.name === 'string' && o.name.startsWith(gen)) out.name = `${gen}<gen>`;
    if (o.kind === 'Table' && Array.isArray(out.rows)) out.rows = out.rows.map(maskAgeCells);
    if (o.kind === 'Service' && out.spec && typeof out.spec === 'object') out.spec = maskServiceAddresses(o, out.spec as Record<string, unknown>);
    if (o.kind === 'SelfSubjectRulesReview' && out.status && typeof out.status === 'object') out.status = sortedRules(out.status as Record<string, unknown>);
    return out;
  }
}

/**
 * 10.0.0.17 to 10.0.0.254: where kube-apiserver's allocator (and ours) picks a ClusterIP at
 * random, above the 16 addresses it keeps for Services that ask for one. An address outside
 * that band stays as it is, so a server allocating elsewhere still shows.
 */
const DYNAMIC_CLUSTER_IP = /^10\.0\.0\.(1[7-9]|[2-9]\d|1\d\d|2[0-4]\d|25[0-4])$/;
const DYNAMIC_MARK = '<dynamic ClusterIP in 10.0.0.0/24>';

function isKubernetesService(o: Record<string, unknown>): boolean {
  const meta = o.metadata as { name?: unknown; namespace?: unknown } | undefined;
  return meta?.name === 'kubernetes' && meta.namespace === 'default';
}

/**
 * The per-server addresses of a Service: dynamic ClusterIPs, and the kubernetes Service's
 * targetPort, which is each server's own port (as the server address is each server's own).
 */
function maskServiceAddresses(o: Record<string, unknown>, spec: Record<string, unknown>): Record<string, unknown> {
  const mask = (ip: unknown): unknown => (typeof ip === 'string' && DYNAMIC_CLUSTER_IP.test(ip) ? DYNAMIC_MARK : ip);
  const out = { ...spec };
  if ('clusterIP' in out) out.clusterIP = mask(out.clusterIP);
  if (Array.isArray(out.clusterIPs)) out.clusterIPs = out.clusterIPs.map(mask);
  if (isKubernetesService(o) && Array.isArray(out.ports)) {
    out.ports = out.ports.map((p: unknown) => (p && typeof p === 'object' && 'targetPort' in p ? { ...p, targetPort: '<server port>' } : p));
  }
  return out;
}

/**
 * A rules review's rules in a fixed order: kube-apiserver lists them in the order it meets the
 * role bindings, which differs from run to run (Go map order).
 */
function sortedRules(status: Record<string, unknown>): Record<string, unknown> {
  const sorted = (rules: unknown): unknown =>
    Array.isArray(rules) ? [...rules].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : rules;
  return { ...status, resourceRules: sorted(status.resourceRules), nonResourceRules: sorted(status.nonResourceRules) };
}

function maskAgeCells(row: unknown): unknown {
  if (!row || typeof row !== 'object' || !Array.isArray((row as { cells?: unknown }).cells)) return row;
  const r = row as { cells: unknown[] };
  return { ...r, cells: r.cells.map((c) => (typeof c === 'string' && AGE_CELL.test(c) ? '<age>' : c)) };
}

/** An outcome with its markers in place; kubectl output split into lines. */
export function normaliseOutcome(o: Outcome): Normalised {
  const n = new Normaliser();
  const a = o.answer;
  const setup = o.setup.map((s) => (typeof s === 'string' ? n.string(s) : s));
  if ('stdout' in a) {
    const lines = (t: string): string[] => n.text(t).split('\n').filter((l) => l !== '');
    return { setup, answer: { exitCode: a.exitCode, stdout: lines(a.stdout), stderr: lines(a.stderr) } };
  }
  return { setup, answer: n.value(a) as Record<string, unknown> };
}
