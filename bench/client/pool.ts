/**
 * The client loop every write measurement shares: `total` tasks, at most `concurrency` in
 * flight, started in index order. The first failure stops new tasks and is rethrown once the
 * in-flight ones settle, so a broken server fails the row instead of producing a fast number.
 */
import type { ProgressTask } from '../progress.js';

export interface PoolResult {
  completed: number;
  elapsedMs: number;
  /** completed / elapsed seconds. */
  perSecond: number;
}

export async function runPool(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
  progress?: ProgressTask,
): Promise<PoolResult> {
  let next = 0;
  let completed = 0;
  let failure: { err: unknown } | undefined;
  const startedAt = performance.now();
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < total) {
      const index = next++;
      try {
        await task(index);
        completed++;
        progress?.advance();
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const elapsedMs = performance.now() - startedAt;
  if (failure !== undefined) throw failure.err;
  return { completed, elapsedMs, perSecond: (completed * 1000) / Math.max(elapsedMs, 1e-9) };
}
