/**
 * The workload's history: every request it sent the API server and what became of it. An
 * outcome is `ok` (the server acknowledged it), `failed` (the server refused it: nothing was
 * written) or `unknown` (no answer, or a 5xx: it may or may not have been applied). At the end
 * the history is checked against what the server holds: an acknowledged write is never lost.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { statusOf } from '@pv-controller/kube/errors.js';
import { RestTransport, type HttpMethod } from '../../src/kube-client/transport.js';
import type { KubeVerb } from '../../src/kube-client/request-counters.js';

export type Outcome = 'ok' | 'failed' | 'unknown';

export interface HistoryEntry {
  /** Milliseconds since the run started. */
  at: number;
  op: string;
  method: HttpMethod;
  /** The object's own path (for a create: the collection's path plus the name). */
  object: string;
  outcome: Outcome;
  /** uid and resourceVersion of an acknowledged write; the value a ledger write carried. */
  uid?: string;
  value?: number;
  error?: string;
}

export interface Answer<T> {
  outcome: Outcome;
  body?: T;
  error?: string;
}

const VERBS: Record<HttpMethod, KubeVerb> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function outcomeOf(err: unknown): Outcome {
  const code = statusOf(err).code;
  return code !== undefined && code > 0 && code < 500 ? 'failed' : 'unknown';
}

/** The workload's client: straight to the API server (never through the fault proxy), recorded. */
export class RecordingClient {
  readonly entries: HistoryEntry[] = [];
  private readonly transport: RestTransport;

  constructor(
    kc: KubeConfig,
    private readonly startedAt: number,
  ) {
    this.transport = new RestTransport(kc, { qps: 0, burst: 0, timeoutMs: 15_000 });
  }

  close(): void {
    this.transport.close();
  }

  /** Sends a request and records it under `op` (reads are not recorded). */
  async send<T extends { metadata?: { uid?: string } }>(
    op: string,
    method: HttpMethod,
    path: string,
    body?: unknown,
    extra: { value?: number; contentType?: string; object?: string } = {},
  ): Promise<Answer<T>> {
    const at = Date.now() - this.startedAt;
    let answer: Answer<T>;
    try {
      const spec = { method, verb: VERBS[method], path, ...(body !== undefined ? { body } : {}), ...(extra.contentType ? { contentType: extra.contentType } : {}) };
      answer = { outcome: 'ok', body: await this.transport.request<T>(spec) };
    } catch (err) {
      answer = { outcome: outcomeOf(err), error: err instanceof Error ? err.message : String(err) };
    }
    if (method !== 'GET') {
      const uid = answer.body?.metadata?.uid;
      this.entries.push({
        at,
        op,
        method,
        object: extra.object ?? path,
        outcome: answer.outcome,
        ...(uid && method === 'POST' ? { uid } : {}),
        ...(extra.value !== undefined ? { value: extra.value } : {}),
        ...(answer.error ? { error: answer.error.slice(0, 300) } : {}),
      });
    }
    return answer;
  }

  /** A GET; undefined when the object does not exist or the server did not answer. */
  async get<T extends { metadata?: { uid?: string } }>(path: string): Promise<T | undefined> {
    return (await this.send<T>('get', 'GET', path)).body;
  }
}

export interface HeldObject {
  uid?: string;
  /** A ledger's value. */
  value?: number;
}

/**
 * The ops whose objects only the workload removes: claims, pods, ledgers and static PVs that no
 * reclaim policy deletes. (A PV with policy Delete is the controller's to delete.)
 */
export const KEPT_OPS = new Set(['claim', 'pod', 'pv-kept', 'ledger']);

/**
 * Acknowledged writes that the server no longer shows: an object whose acknowledged create was
 * never followed by a delete (of any outcome) must exist with that uid; a ledger must hold at
 * least the highest value acknowledged, and only a value that was written. `current(path)` is
 * the server's object at that path now.
 */
export function lostWrites(entries: HistoryEntry[], current: Map<string, HeldObject>): string[] {
  const lost: string[] = [];
  const byPath = new Map<string, HistoryEntry[]>();
  for (const e of entries) {
    if (!KEPT_OPS.has(e.op)) continue;
    const list = byPath.get(e.object) ?? [];
    list.push(e);
    byPath.set(e.object, list);
  }
  for (const [path, list] of byPath) {
    if (list[0]?.op === 'ledger') {
      lost.push(...ledgerLosses(path, list, current.get(path)));
      continue;
    }
    const lastCreate = list.map((e, i) => ({ e, i })).filter(({ e }) => e.method === 'POST' && e.outcome === 'ok').at(-1);
    if (!lastCreate) continue;
    const deletedLater = list.slice(lastCreate.i + 1).some((e) => e.method === 'DELETE');
    if (deletedLater) continue;
    const held = current.get(path);
    if (held?.uid !== lastCreate.e.uid) {
      lost.push(`${path}: create acknowledged at ${lastCreate.e.at} ms (uid ${lastCreate.e.uid ?? '?'}) but the server holds ${held ? `uid ${held.uid ?? '?'}` : 'nothing'}`);
    }
  }
  return lost;
}

function ledgerLosses(path: string, list: HistoryEntry[], held: HeldObject | undefined): string[] {
  const acked = list.filter((e) => e.outcome === 'ok').map((e) => e.value ?? 0);
  if (acked.length === 0) return [];
  const highest = Math.max(...acked);
  const value = held?.value ?? NaN;
  if (!(value >= highest)) return [`${path}: value ${highest} acknowledged, the server holds ${held?.value ?? 'nothing'}`];
  if (!list.some((e) => e.value === value)) return [`${path}: holds ${value}, which was never written`];
  return [];
}
