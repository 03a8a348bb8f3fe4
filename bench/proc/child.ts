/**
 * Child processes of the bench (API servers, the controller, watchers): spawned in their own
 * process group so a stop reaches everything they started, with stdout/stderr captured to a log
 * file for diagnosis, `--cpu-prof` passed through on request, and peak RSS read from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopOnSignal } from './cleanup.js';

export interface ChildSpec {
  /** Short name for logs and profile files, e.g. "apiserver-memory". */
  label: string;
  /** Script to run with `node`. */
  script: string;
  args: string[];
  /** Directory for the log file (`<label>.log`). */
  logDir: string;
  /** Write a CPU profile into this directory when set. */
  cpuProfDir?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunningChild {
  label: string;
  pid: number;
  process: ChildProcess;
  logPath: string;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  exited: Promise<number | string>;
  /** The exit code (or signal name) if the child has exited already. */
  exitStatus(): number | string | undefined;
  /** SIGTERM to the process group, SIGKILL after the grace period; resolves once exited. */
  stop(graceMs?: number): Promise<void>;
}

export function startChild(spec: ChildSpec): RunningChild {
  mkdirSync(spec.logDir, { recursive: true });
  const logPath = join(spec.logDir, `${spec.label}.log`);
  // The child writes its log straight into the file: no bench CPU spent piping it.
  const logFd = openSync(logPath, 'a');
  const nodeArgs: string[] = [];
  if (spec.cpuProfDir) {
    mkdirSync(spec.cpuProfDir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', spec.cpuProfDir, '--cpu-prof-name', `${spec.label}-${Date.now()}.cpuprofile`);
  }
  const child = spawn(process.execPath, [...nodeArgs, spec.script, ...spec.args], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, ...spec.env },
  });
  closeSync(logFd);
  if (child.pid === undefined) throw new Error(`cannot start ${spec.label}`);
  const pid = child.pid;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  let status: number | string | undefined;
  const stop = async (graceMs = 5000): Promise<void> => {
    if (status !== undefined) return;
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    signalGroup(pid, 'SIGKILL'); // anything the child itself left behind in its group
  };
  const forget = stopOnSignal(() => stop());
  void exited.then((s) => {
    status = s;
    forget();
  });
  return { label: spec.label, pid, process: child, logPath, exited, exitStatus: () => status, stop };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Peak resident set size (VmHWM) of a live process, in bytes; null if unreadable. */
export function peakRssBytes(pid: number): number | null {
  return readStatusKb(pid, 'VmHWM');
}

/** Current resident set size (VmRSS) in bytes; null if unreadable. */
export function currentRssBytes(pid: number): number | null {
  return readStatusKb(pid, 'VmRSS');
}

let clockTicksPerSecond: number | undefined;

function ticksPerSecond(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

/**
 * CPU time (user + system) a live process has used, in ms, from /proc/<pid>/stat; null if
 * unreadable. Unlike a profile's busy time it does not count time the process waited for a core,
 * so it stays meaningful on a loaded machine.
 */
export function cpuTimeMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3, utime field 14, stime field 15 (proc(5)).
    const ticks = Number(fields[14 - 3]) + Number(fields[15 - 3]);
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
  } catch {
    return null;
  }
}

/** CPU time so far of the controller and the API server (null where unreadable or absent). */
export interface CpuSnapshot {
  controller: number | null;
  server: number | null;
}

/** The server's CPU is the sum over its processes (kube-apiserver and etcd are two); null if any is unreadable. */
export function serverCpuTimeMs(serverPids: readonly number[]): number | null {
  const server = serverPids.map(cpuTimeMs);
  const known = server.length > 0 && server.every((ms) => ms !== null);
  return known ? server.reduce((a, b) => a! + b!, 0) : null;
}

export function cpuSnapshot(controllerPid: number, serverPids: readonly number[]): CpuSnapshot {
  return { controller: cpuTimeMs(controllerPid), server: serverCpuTimeMs(serverPids) };
}

/** CPU ms (user + system) this process has spent since `since` (a process.cpuUsage() reading). */
export function ownCpuMsSince(since: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(since);
  return (spent.user + spent.system) / 1000;
}

/** CPU ms each process spent between two snapshots, divided by `per` (null where unknown). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot, per = 1): CpuSnapshot {
  const spent = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : (b - a) / per);
  return { controller: spent(before.controller, after.controller), server: spent(before.server, after.server) };
}

function readStatusKb(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Last lines of a child's log, for error messages. */
export function logTail(path: string, lines = 15): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
