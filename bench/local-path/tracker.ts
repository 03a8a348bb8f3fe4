/**
 * When each workload claim became Bound and each workload pod Running, from two watches on the
 * workload namespace (resumed from the last resourceVersion if the server ends one). The first
 * sighting counts; a pod seen Failed is recorded as a failure with its reason, never as Running.
 */
import { resumableWatch, type ResumableWatch } from '../client/resumable-watch.js';
import { currentResourceVersion, expectOk, type BenchClient } from '../client/kube-client.js';
import { WORKLOAD_NAMESPACE } from './objects.js';

interface WatchedObject {
  metadata?: { name?: string; uid?: string };
  status?: { phase?: string; reason?: string; message?: string };
}

export interface Tracker {
  created: Map<string, number>;
  bound: Map<string, number>;
  running: Map<string, number>;
  podUid: Map<string, string>;
  failed: Map<string, string>;
  /** Why a watch could not go on, if it could not. */
  failure(): string | undefined;
  stop(): void;
}

export function applyLine(t: Pick<Tracker, 'bound' | 'running' | 'podUid' | 'failed'>, kind: 'claim' | 'pod', line: string, now: number): void {
  let event: { type?: string; object?: WatchedObject };
  try {
    event = JSON.parse(line) as { type?: string; object?: WatchedObject };
  } catch {
    return;
  }
  const name = event.object?.metadata?.name;
  const phase = event.object?.status?.phase;
  if (!name || event.type === 'DELETED') return;
  if (kind === 'claim') {
    if (phase === 'Bound' && !t.bound.has(name)) t.bound.set(name, now);
    return;
  }
  const uid = event.object?.metadata?.uid;
  if (uid) t.podUid.set(name, uid);
  if (phase === 'Running' && !t.running.has(name)) t.running.set(name, now);
  if (phase === 'Failed' && !t.failed.has(name)) {
    const s = event.object?.status;
    t.failed.set(name, `${s?.reason ?? 'Failed'}${s?.message ? `: ${s.message}` : ''}`);
  }
}

function relister(client: BenchClient, t: Tracker, kind: 'claim' | 'pod', path: string): () => Promise<number> {
  return async () => {
    const res = expectOk(await client.raw('GET', path), `list ${path}`);
    const list = JSON.parse(res.body) as { metadata?: { resourceVersion?: string }; items?: WatchedObject[] };
    const now = performance.now();
    for (const item of list.items ?? []) applyLine(t, kind, JSON.stringify({ type: 'MODIFIED', object: item }), now);
    return Number(list.metadata?.resourceVersion);
  };
}

export async function startTracker(client: BenchClient): Promise<Tracker> {
  const t: Tracker = {
    created: new Map(),
    bound: new Map(),
    running: new Map(),
    podUid: new Map(),
    failed: new Map(),
    failure: () => undefined,
    stop: () => undefined,
  };
  const rv = await currentResourceVersion(client);
  const watches: ResumableWatch[] = [];
  for (const [kind, resource] of [['claim', 'persistentvolumeclaims'], ['pod', 'pods']] as const) {
    const path = `/api/v1/namespaces/${WORKLOAD_NAMESPACE}/${resource}`;
    watches.push(
      await resumableWatch(client, {
        path,
        fromResourceVersion: rv,
        onLine: (line) => applyLine(t, kind, line, performance.now()),
        relist: relister(client, t, kind, path),
      }),
    );
  }
  t.failure = () => watches.map((w) => w.failure()).find((f) => f !== undefined);
  t.stop = () => watches.forEach((w) => w.stop());
  return t;
}
