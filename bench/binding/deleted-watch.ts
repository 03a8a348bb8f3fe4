/**
 * Watches PersistentVolumes and records when each was deleted (its DELETED event) — the clock of
 * the reclaim half of the provision scenario. Only DELETED lines are parsed.
 */
import type { PersistentVolume, WatchEvent } from '../../src/kube/types.js';
import type { BenchClient } from '../client/kube-client.js';
import { STALL_MS } from './bound-watch.js';

export interface DeletedTracker {
  /** PV name → performance.now() of its DELETED event. */
  deletedAt: Map<string, number>;
  /** Resolves once every name in `names` was deleted; throws after `stallMs` without progress. */
  waitForDeleted(names: ReadonlySet<string>, check: () => void, stallMs?: number): Promise<void>;
  stop(): void;
}

export async function trackDeletedVolumes(client: BenchClient, fromResourceVersion: number): Promise<DeletedTracker> {
  const deletedAt = new Map<string, number>();
  let streamError: string | undefined;
  const stop = await client.stream(`/api/v1/persistentvolumes?watch=true&resourceVersion=${fromResourceVersion}`, (line) => {
    if (!line.startsWith('{"type":"DELETED"') && !line.includes('"ERROR"')) return;
    const event = JSON.parse(line) as WatchEvent<PersistentVolume>;
    if (event.type === 'ERROR') streamError = line.slice(0, 300);
    else if (event.type === 'DELETED') deletedAt.set(event.object.metadata.name ?? '', performance.now());
  });
  return {
    deletedAt,
    async waitForDeleted(names, check, stallMs = STALL_MS) {
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        if (streamError) throw new Error(`volume watch failed: ${streamError}`);
        check();
        let done = 0;
        for (const name of names) if (deletedAt.has(name)) done++;
        if (done >= names.size) return;
        if (done !== last) {
          last = done;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > stallMs) {
          throw new Error(`only ${done} of ${names.size} volumes deleted; no progress for ${stallMs / 1000} s`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop,
  };
}
