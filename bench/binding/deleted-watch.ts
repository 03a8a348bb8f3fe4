/**
 * Watches PersistentVolumes and records when each was deleted (its DELETED event) — the clock of
 * the reclaim half of the provision scenario. Only DELETED lines are parsed. The watch resumes
 * when the server ends it (resumable-watch.ts).
 */
import type { PersistentVolume, WatchEvent } from '@pv-controller/kube/types.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { resumableWatch } from '../client/resumable-watch.js';
import { STALL_MS } from './bound-watch.js';

export interface DeletedTracker {
  /** PV name → performance.now() of its DELETED event. */
  deletedAt: Map<string, number>;
  /** Resolves once every name in `names` was deleted; throws after `stallMs` without progress. */
  waitForDeleted(names: ReadonlySet<string>, check: () => void, stallMs?: number): Promise<void>;
  stop(): void;
}

const PATH = '/api/v1/persistentvolumes';

export async function trackDeletedVolumes(client: BenchClient, fromResourceVersion: number): Promise<DeletedTracker> {
  const deletedAt = new Map<string, number>();
  /** Names a re-list found, and when: an awaited volume missing from it was deleted by then. */
  let listed: { names: Set<string>; at: number } | undefined;
  const watch = await resumableWatch(client, {
    path: PATH,
    fromResourceVersion,
    onLine(line) {
      if (!line.startsWith('{"type":"DELETED"')) return;
      deletedAt.set((JSON.parse(line) as WatchEvent<PersistentVolume>).object.metadata.name ?? '', performance.now());
    },
    async relist() {
      const list = JSON.parse(expectOk(await client.raw('GET', PATH), 'list PVs').body) as { metadata: { resourceVersion?: string }; items: PersistentVolume[] };
      listed = { names: new Set(list.items.map((pv) => pv.metadata.name ?? '')), at: performance.now() };
      return Number(list.metadata.resourceVersion);
    },
  });
  return {
    deletedAt,
    async waitForDeleted(names, check, stallMs = STALL_MS) {
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        const failure = watch.failure();
        if (failure) throw new Error(`volume watch failed: ${failure}`);
        check();
        let done = 0;
        for (const name of names) {
          if (!deletedAt.has(name) && listed && !listed.names.has(name)) deletedAt.set(name, listed.at);
          if (deletedAt.has(name)) done++;
        }
        if (done >= names.size) return;
        if (done !== last) {
          last = done;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > stallMs) {
          const { reopened, relisted } = watch.resumes();
          throw new Error(`only ${done} of ${names.size} volumes deleted; no progress for ${stallMs / 1000} s (watch reopened ${reopened}×, relisted ${relisted}×)`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: () => watch.stop(),
  };
}
