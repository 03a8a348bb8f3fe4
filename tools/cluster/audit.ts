/**
 * Reads kube-apiserver audit logs for one user: every request it made, which were denied by the
 * authorizer, and which verbs a role grants that the logs never show used.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { readdir, readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';

export interface AuditUse {
  verb: string;
  /** "persistentvolumes", "persistentvolumes/status", "leases.coordination.k8s.io" … */
  resource: string;
}

export interface AuditSummary {
  user: string;
  requests: number;
  denied: Array<AuditUse & { uri: string; code: number }>;
  used: Map<string, number>;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  requestURI?: string;
  userAgent?: string;
  requestReceivedTimestamp?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

export function useKey(u: AuditUse): string {
  return `${u.verb} ${u.resource}`;
}

function resourceOf(ref: AuditEvent['objectRef']): string {
  if (!ref?.resource) return '(non-resource)';
  const base = ref.apiGroup ? `${ref.resource}.${ref.apiGroup}` : ref.resource;
  return ref.subresource ? `${base}/${ref.subresource}` : base;
}

/** Every `audit.log*` file under `dir`, one level of sub-directories deep. */
async function auditFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      for (const f of await readdir(p)) if (f.startsWith('audit.log')) out.push(join(p, f));
    } else if (entry.name.startsWith('audit.log')) out.push(p);
  }
  return out;
}

export async function summariseAudit(dir: string, user: string): Promise<AuditSummary> {
  const summary: AuditSummary = { user, requests: 0, denied: [], used: new Map() };
  for (const file of await auditFiles(dir)) {
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.includes(user)) continue;
      const ev = JSON.parse(line) as AuditEvent;
      // A watch has a ResponseStarted and a ResponseComplete event: count each request once.
      if (ev.user?.username !== user || ev.stage !== 'ResponseComplete') continue;
      summary.requests++;
      const use = { verb: ev.verb ?? '', resource: resourceOf(ev.objectRef) };
      if (ev.annotations?.['authorization.k8s.io/decision'] === 'forbid') {
        summary.denied.push({ ...use, uri: ev.requestURI ?? '', code: ev.responseStatus?.code ?? 0 });
      }
      summary.used.set(useKey(use), (summary.used.get(useKey(use)) ?? 0) + 1);
    }
  }
  return summary;
}

/** What one client did in a time window: requests answered, successful writes, 409 Conflicts. */
export interface AuditWindowCounts {
  requests: number;
  writes: number;
  conflicts: number;
  /** Requests by the User-Agent's last segment: kube-controller-manager names its controller there. */
  byComponent: Record<string, number>;
}

export interface AuditWindow {
  /** The client, by the start of its User-Agent (e.g. "kube-controller-manager/"). */
  userAgentPrefix: string;
  /** Requests received in [fromMs, toMs] (wall clock, ms since the epoch) count. */
  fromMs: number;
  toMs: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Counts one client's requests in an audit log by User-Agent and time received, so clients that
 * share an identity (the admin of a benchmark) are still told apart.
 */
export async function countAuditWindow(file: string, window: AuditWindow): Promise<AuditWindowCounts> {
  const counts: AuditWindowCounts = { requests: 0, writes: 0, conflicts: 0, byComponent: {} };
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes(window.userAgentPrefix)) continue;
    const ev = JSON.parse(line) as AuditEvent;
    if (ev.stage !== 'ResponseComplete' || !ev.userAgent?.startsWith(window.userAgentPrefix)) continue;
    const at = Date.parse(ev.requestReceivedTimestamp ?? '');
    if (!(at >= window.fromMs && at <= window.toMs)) continue;
    counts.requests++;
    const component = ev.userAgent.slice(ev.userAgent.lastIndexOf('/') + 1);
    counts.byComponent[component] = (counts.byComponent[component] ?? 0) + 1;
    const code = ev.responseStatus?.code ?? 0;
    if (code === 409) counts.conflicts++;
    if (WRITE_VERBS.has(ev.verb ?? '') && code >= 200 && code < 300) counts.writes++;
  }
  return counts;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}

/** The (verb, resource) pairs the Roles and ClusterRoles of a manifest grant. */
export async function grantedUses(manifest: string): Promise<AuditUse[]> {
  const docs = parseAllDocuments(await readFile(manifest, 'utf8')).map((d) => d.toJS() as { kind?: string; rules?: PolicyRule[] });
  const out: AuditUse[] = [];
  for (const doc of docs) {
    if (doc?.kind !== 'Role' && doc?.kind !== 'ClusterRole') continue;
    for (const rule of doc.rules ?? []) {
      for (const group of rule.apiGroups ?? ['']) {
        for (const res of rule.resources ?? []) {
          const [name, sub] = res.split('/');
          const resource = `${group ? `${name}.${group}` : name}${sub ? `/${sub}` : ''}`;
          for (const verb of rule.verbs ?? []) out.push({ verb, resource });
        }
      }
    }
  }
  return out;
}
