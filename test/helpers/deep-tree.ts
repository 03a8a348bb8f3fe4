/**
 * Trees a workload can leave in its volume that full paths cannot reach: a chain of directories
 * far deeper than PATH_MAX, built one level at a time relative to the last directory opened
 * (/proc/self/fd/<fd>/<name>, openat-like), and a cleanup that works whatever is left of one
 * (GNU rm walks by descriptors too). Also a heap watch for the tests that bound memory.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants as C, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/**
 * Creates `depth` nested directories named `name` below the existing directory `dir` and a file
 * `leaf.txt` at the bottom; returns nothing a test could mistake for the bottom's path.
 */
export function buildChain(dir: string, depth: number, name = 'd'): void {
  let fd = openSync(dir, DIR_FLAGS);
  try {
    for (let level = 0; level < depth; level++) {
      mkdirSync(`/proc/self/fd/${fd}/${name}`);
      const next = openSync(`/proc/self/fd/${fd}/${name}`, DIR_FLAGS);
      closeSync(fd);
      fd = next;
    }
    writeFileSync(`/proc/self/fd/${fd}/leaf.txt`, 'the bottom of the chain');
  } finally {
    closeSync(fd);
  }
}

/** How many directories deep `dir` goes, following the first sub-directory `name` down. */
export function chainDepth(dir: string, name = 'd'): number {
  let fd = openSync(dir, DIR_FLAGS);
  let depth = 0;
  try {
    for (;;) {
      let next: number;
      try {
        next = openSync(`/proc/self/fd/${fd}/${name}`, DIR_FLAGS);
      } catch {
        return depth;
      }
      closeSync(fd);
      fd = next;
      depth++;
    }
  } finally {
    closeSync(fd);
  }
}

/** Removes `path` whatever its depth (GNU rm), staying on its filesystem. */
export function removeDeepTree(path: string): void {
  const done = spawnSync('rm', ['-rf', '--one-file-system', '--', path], { stdio: 'ignore' });
  if (done.status !== 0) throw new Error(`rm -rf ${path} failed (${done.status ?? done.signal})`);
}

/** A full garbage collection, whatever flags the process was started with. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * Watches the live heap while an operation runs: the peak growth above the heap in use when it
 * started, sampled every few milliseconds, and an AbortSignal that fires once growth passes
 * `limitBytes` (so an operation whose memory runs away stops early instead of exhausting the
 * process). A sample over the limit is taken again after a full collection, so garbage the
 * collector had not reached yet does not count; only what the operation holds does.
 */
export class HeapWatch {
  private readonly base: number;
  private peak = 0;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limitBytes: number) {
    collectGarbage();
    this.base = heapUsed();
    this.timer = setInterval(() => this.sample(), 5);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private sample(): void {
    let growth = heapUsed() - this.base;
    if (growth > this.limitBytes) {
      collectGarbage();
      growth = heapUsed() - this.base;
    }
    this.peak = Math.max(this.peak, growth);
    if (this.peak > this.limitBytes && !this.controller.signal.aborted) {
      this.controller.abort(new Error(`heap grew by ${mib(this.peak)}, over the ${mib(this.limitBytes)} bound`));
    }
  }

  /** Stops watching; the peak growth seen, in bytes. */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
