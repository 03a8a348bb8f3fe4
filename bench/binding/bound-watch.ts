/**
 * Watches the bench namespace's claims and records, for each, when it was first seen Bound and
 * to which volume — the bind scenario's clock. Only lines mentioning "Bound" are parsed, so the
 * bench's own CPU stays small beside the processes being measured. The watch resumes when the
 * server ends it (resumable-watch.ts).
 */
import type { PersistentVolumeClaim, WatchEvent } from '@pv-controller/kube/types.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { resumableWatch } from '../client/resumable-watch.js';
import { BENCH_NAMESPACE } from '../fixtures.js';

/** No progress for this long (twice the controllers' 15 s resync) means the run is stuck. */
export const STALL_MS = 30_000;

export interface BoundTracker {
  /** Claim name → performance.now() when first seen Bound. */
  boundAt: Map<string, number>;
  /** Claim name → spec.volumeName when first seen Bound. */
  volumeOf: Map<string, string>;
  /** Resolves once `count` claims whose names start with `prefix` are Bound. */
  waitForBound(prefix: string, count: number, check: () => void, stallMs?: number): Promise<void>;
  /** How often the server ended the watch and it was resumed (see resumable-watch.ts). */
  resumes(): { reopened: number; relisted: number };
  stop(): void;
}

interface ClaimList {
  metadata: { resourceVersion?: string };
  items: PersistentVolumeClaim[];
}

export async function trackBound(client: BenchClient, fromResourceVersion: number): Promise<BoundTracker> {
  const boundAt = new Map<string, number>();
  const volumeOf = new Map<string, string>();
  /** Names in the order first seen Bound, so a wait counts only what is new since it last looked. */
  const boundOrder: string[] = [];
  const markBound = (claim: PersistentVolumeClaim): void => {
    const name = claim.metadata.name ?? '';
    if (claim.status?.phase === 'Bound' && !boundAt.has(name)) {
      boundAt.set(name, performance.now());
      volumeOf.set(name, claim.spec.volumeName ?? '');
      boundOrder.push(name);
    }
  };
  const path = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
  const watch = await resumableWatch(client, {
    path,
    fromResourceVersion,
    onLine(line) {
      if (line.includes('"Bound"')) markBound((JSON.parse(line) as WatchEvent<PersistentVolumeClaim>).object);
    },
    async relist() {
      // Claims bound while no watch ran are stamped now: later than they were, never earlier.
      const list = JSON.parse(expectOk(await client.raw('GET', path), 'list claims').body) as ClaimList;
      for (const claim of list.items) markBound(claim);
      return Number(list.metadata.resourceVersion);
    },
  });
  /** A running count of Bound names with `prefix`: each check looks only at names bound since the last (a rescan every 20 ms would cost O(N) each at 100,000 claims). */
  const boundCounter = (prefix: string): (() => number) => {
    let seen = 0;
    let n = 0;
    return () => {
      for (; seen < boundOrder.length; seen++) if (boundOrder[seen].startsWith(prefix)) n++;
      return n;
    };
  };
  return {
    boundAt,
    volumeOf,
    async waitForBound(prefix, count, check, stallMs = STALL_MS) {
      let last = -1;
      let lastChange = Date.now();
      const countBound = boundCounter(prefix);
      for (;;) {
        const failure = watch.failure();
        if (failure) throw new Error(`claim watch failed: ${failure}`);
        check();
        const bound = countBound();
        if (bound >= count) return;
        if (bound !== last) {
          last = bound;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > stallMs) {
          const { reopened, relisted } = watch.resumes();
          throw new Error(`only ${bound} of ${count} claims Bound; no progress for ${stallMs / 1000} s (watch reopened ${reopened}×, relisted ${relisted}×)`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    resumes: () => watch.resumes(),
    stop: () => watch.stop(),
  };
}
