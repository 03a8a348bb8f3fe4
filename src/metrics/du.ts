/**
 * Usage of one directory volume, measured with the system `du` like kubelet's MetricsDu:
 * - used bytes: `du -s -x -P -B1` — allocated disk blocks in bytes (not apparent size: a sparse
 *   file costs what it occupies, which is what fills the disk), one filesystem only (-x), never
 *   following a symlink (-P: a link to a huge tree elsewhere costs only the link), hard links
 *   counted once; this is kubelet's `du -x -s -B 1` plus an explicit -P;
 * - inodes used: `du -s -x -P --inodes`, the same walk counting inodes (kubelet approximates
 *   with `find -xdev | wc`, which counts a hard-linked file twice);
 * - capacity and available: statfs of the path, capped by the volume's own capacity when that
 *   is smaller (available = min(filesystem available, capacity - used), never negative).
 * The walk is expensive on big trees, so it runs niced, with a deadline; on timeout or abort the
 * whole process group is killed and waited for before the promise rejects. du walks by
 * descriptors (fts), so a tree far deeper than PATH_MAX or a directory of millions of entries
 * costs the du process, never this one, which reads at most 64 KiB of its output.
 *
 * A volume in use changes while du walks it: an entry deleted between the listing and its stat
 * makes du say "cannot access '...': No such file or directory" and exit 1 after printing its
 * total. That total is the usage of the tree as du found it, so it is taken; any other complaint
 * still fails the measurement. du runs with LC_ALL=C so its complaints can be read.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { setPriority } from 'node:os';
import { MetricsError, type MetricsProvider, type VolumeMetrics } from './provider.js';
import { filesystemStats } from './statfs.js';

export interface DuOptions {
  /** The volume's own capacity (PV capacity); caps capacity and available when smaller. */
  capacityBytes?: bigint;
  /** Deadline for one whole measurement; default 2 minutes. */
  timeoutMs?: number;
  /** The du executable; default `du` from PATH (GNU coreutils: needs -B1 and --inodes). */
  duCommand?: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 64 * 1024;
const NICENESS = 19;

export class DuMetricsProvider implements MetricsProvider {
  constructor(
    private readonly path: string,
    private readonly options: DuOptions = {},
  ) {}

  async getMetrics(signal?: AbortSignal): Promise<VolumeMetrics> {
    await this.checkDirectory();
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const run = (args: string[]) =>
      runDu(this.options.duCommand ?? 'du', [...args, '--', this.path], stop).catch((err: unknown) => {
        if (deadline.aborted) throw new MetricsError(`du on "${this.path}" timed out after ${timeoutMs} ms`, { cause: err });
        throw err;
      });
    const usedBytes = await run(['-s', '-x', '-P', '-B1']);
    const inodesUsed = await run(['-s', '-x', '-P', '--inodes']);
    const fsStats = await filesystemStats(this.path);
    const { capacityBytes, availableBytes } = capByVolume(
      fsStats.capacityBytes,
      fsStats.availableBytes,
      usedBytes,
      this.options.capacityBytes,
    );
    return {
      usedBytes,
      capacityBytes,
      availableBytes,
      inodes: fsStats.inodes,
      inodesFree: fsStats.inodesFree,
      inodesUsed,
      time: new Date(),
    };
  }

  private async checkDirectory(): Promise<void> {
    if (this.path === '') throw new MetricsError('no path defined for disk usage metrics');
    let st;
    try {
      st = await fs.lstat(this.path);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      const what = missing ? 'does not exist' : `cannot be read: ${(err as Error).message}`;
      throw new MetricsError(`volume directory "${this.path}" ${what}`, { cause: err });
    }
    if (!st.isDirectory()) {
      const kind = st.isSymbolicLink() ? 'a symbolic link' : 'not a directory';
      throw new MetricsError(`volume path "${this.path}" is ${kind}; refusing to measure it`);
    }
  }
}

/** Capacity/available of a volume on a filesystem it shares, capped by its own capacity. */
export function capByVolume(
  fsCapacity: bigint,
  fsAvailable: bigint,
  used: bigint,
  volumeCapacity: bigint | undefined,
): { capacityBytes: bigint; availableBytes: bigint } {
  if (volumeCapacity === undefined || volumeCapacity >= fsCapacity) {
    return { capacityBytes: fsCapacity, availableBytes: fsAvailable };
  }
  const left = volumeCapacity > used ? volumeCapacity - used : 0n;
  return { capacityBytes: volumeCapacity, availableBytes: left < fsAvailable ? left : fsAvailable };
}

/** Runs du in its own process group and returns the first number it prints. */
export function runDu(command: string, args: string[], signal: AbortSignal): Promise<bigint> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new MetricsError(`du was aborted before it started`, { cause: signal.reason }));
      return;
    }
    const env = { ...process.env, LC_ALL: 'C' };
    const child = spawn(command, args, { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    collect(child.stdout, out);
    collect(child.stderr, err);
    if (child.pid !== undefined) lowerPriority(child.pid);
    const killGroup = () => {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    };
    signal.addEventListener('abort', killGroup, { once: true });
    child.on('error', (e) => {
      signal.removeEventListener('abort', killGroup);
      reject(new MetricsError(`failed to run "${command}": ${e.message}`, { cause: e }));
    });
    child.on('close', (code, sig) => {
      signal.removeEventListener('abort', killGroup);
      if (signal.aborted) return reject(new MetricsError(`du was aborted (${sig ?? code})`, { cause: signal.reason }));
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (code !== 0 && !(code === 1 && onlyVanishedEntries(stderr))) {
        return reject(new MetricsError(`"${command} ${args.join(' ')}" failed (exit ${code ?? sig}): ${stderr}`));
      }
      const first = stdout.trim().split(/\s+/)[0] ?? '';
      if (!/^\d+$/.test(first)) return reject(new MetricsError(`cannot parse du output ${JSON.stringify(stdout.slice(0, 200))}`));
      resolve(BigInt(first));
    });
  });
}

/** du's complaints (C locale, names quoted so they hold no newline) are all about entries deleted while it walked. */
function onlyVanishedEntries(stderr: string): boolean {
  const lines = stderr.split('\n').filter((line) => line !== '');
  return lines.length > 0 && lines.every((line) => /^du: cannot (access|read directory) '.*': No such file or directory$/.test(line));
}

function collect(stream: NodeJS.ReadableStream, into: Buffer[]): void {
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size < MAX_OUTPUT_BYTES) into.push(chunk);
    size += chunk.length;
  });
}

function lowerPriority(pid: number): void {
  try {
    setPriority(pid, NICENESS);
  } catch {
    // Not permitted or already exited: measuring at normal priority is still correct.
  }
}
