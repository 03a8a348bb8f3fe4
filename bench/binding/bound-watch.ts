/**
 * Watches the bench namespace's claims and records, for each, when it was first seen Bound and
 * to which volume — the bind scenario's clock. Only lines mentioning "Bound" are parsed, so the
 * bench's own CPU stays small beside the processes being measured.
 */
import type { PersistentVolumeClaim, WatchEvent } from '../../src/kube/types.js';
import type { BenchClient } from '../client/kube-client.js';

/** No progress for this long (twice the controller's 15 s resync) means the run is stuck. */
export const STALL_MS = 30_000;
import { BENCH_NAMESPACE } from '../fixtures.js';

export interface BoundTracker {
  /** Claim name → performance.now() when first seen Bound. */
  boundAt: Map<string, number>;
  /** Claim name → spec.volumeName when first seen Bound. */
  volumeOf: Map<string, string>;
  /** Resolves once `count` claims whose names start with `prefix` are Bound. */
  waitForBound(prefix: string, count: number, check: () => void, stallMs?: number): Promise<void>;
  stop(): void;
}

export async function trackBound(client: BenchClient, fromResourceVersion: number): Promise<BoundTracker> {
  const boundAt = new Map<string, number>();
  const volumeOf = new Map<string, string>();
  let streamError: string | undefined;
  const path = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims?watch=true&resourceVersion=${fromResourceVersion}`;
  const stop = await client.stream(path, (line) => {
    if (!line.includes('"Bound"') && !line.includes('"ERROR"')) return;
    const event = JSON.parse(line) as WatchEvent<PersistentVolumeClaim>;
    if (event.type === 'ERROR') {
      streamError = line.slice(0, 300);
      return;
    }
    const name = event.object.metadata.name ?? '';
    if (event.object.status?.phase === 'Bound' && !boundAt.has(name)) {
      boundAt.set(name, performance.now());
      volumeOf.set(name, event.object.spec.volumeName ?? '');
    }
  });
  const countBound = (prefix: string): number => {
    let n = 0;
    for (const name of boundAt.keys()) if (name.startsWith(prefix)) n++;
    return n;
  };
  return {
    boundAt,
    volumeOf,
    async waitForBound(prefix, count, check, stallMs = STALL_MS) {
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        if (streamError) throw new Error(`claim watch failed: ${streamError}`);
        check();
        const bound = countBound(prefix);
        if (bound >= count) return;
        if (bound !== last) {
          last = bound;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > stallMs) {
          throw new Error(`only ${bound} of ${count} claims Bound; no progress for ${stallMs / 1000} s`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop,
  };
}
