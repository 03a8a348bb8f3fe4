/**
 * The controller under test, in its own child process (`pv-controller controller --kubeconfig
 * K`), so its CPU and memory are its own: the bench samples its peak RSS (VmHWM) from /proc.
 * Optional flags are passed only when the controller's --help lists them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath } from '../paths.js';
import type { BenchOptions } from '../scenario.js';
import { logTail, peakRssBytes, startChild } from './child.js';

const helpCache = new Map<string, string>();
/** Client-side rate limit high enough that no controller of the bench ever waits on it. */
export const UNLIMITED_QPS = 100_000;

/** `pv-controller <command> --help` text ('' when unavailable). */
export function commandHelp(command: string): string {
  const cached = helpCache.get(command);
  if (cached !== undefined) return cached;
  let help = '';
  try {
    help = execFileSync(process.execPath, [cliPath(), command, '--help'], { encoding: 'utf8', timeout: 20_000 });
  } catch {
    help = '';
  }
  helpCache.set(command, help);
  return help;
}

/** Whether `command --help` lists the flag (e.g. "--workers"). */
export function hasFlag(command: string, flag: string): boolean {
  return new RegExp(`(^|[\\s,])${flag}([\\s=<[]|$)`, 'm').test(commandHelp(command));
}

/** A flag passed only if the controller knows it: `flag` is looked up, `args` are passed. */
export interface OptionalFlag {
  flag: string;
  args: string[];
}

export interface ControllerSpec {
  kubeconfig: string;
  /** Extra flags, e.g. the host-path plugin's root. */
  flags?: OptionalFlag[];
  /** The compiled CLI to run (default this checkout's; the --baseline checkout's for its runs). */
  cli?: string;
}

/** A controller under test in its own process: ours, or kube-controller-manager. */
export interface RunningControllerProcess {
  label: string;
  pid: number;
  logPath: string;
  /** The exit code (or signal name) if it has exited already. */
  exitStatus(): number | string | undefined;
  /** Peak RSS so far in bytes (VmHWM), null if it cannot be read. */
  peakRss(): number | null;
  stop(): Promise<void>;
}

/** Throws (with the log's tail) once the controller has exited: for the waits of a run. */
export function controllerAlive(controller: RunningControllerProcess): () => void {
  return () => {
    const status = controller.exitStatus();
    if (status !== undefined) throw new Error(`${controller.label} exited (${status}):\n${logTail(controller.logPath)}`);
  };
}

export function controllerArgs(opts: BenchOptions, spec: ControllerSpec): string[] {
  const wanted: OptionalFlag[] = [
    // The same number of syncs in flight as the floor's client loop has requests in flight.
    { flag: '--concurrent-syncs', args: ['--concurrent-syncs', String(opts.concurrency)] },
    // The client-side rate limiter (default 20 QPS, as kube-controller-manager) would cap
    // binding at ~5 pairs/s by design; the bench measures the controller, not the limiter.
    { flag: '--kube-api-qps', args: ['--kube-api-qps', String(UNLIMITED_QPS)] },
    { flag: '--kube-api-burst', args: ['--kube-api-burst', String(UNLIMITED_QPS)] },
    { flag: '--leader-elect', args: ['--leader-elect=false'] },
    // Never the fixed default port: other processes on this machine may hold it.
    { flag: '--metrics-bind-address', args: ['--metrics-bind-address', '127.0.0.1:0'] },
    ...(spec.flags ?? []),
  ];
  const args = ['controller', '--kubeconfig', spec.kubeconfig];
  for (const { flag, args: extra } of wanted) if (hasFlag('controller', flag)) args.push(...extra);
  return args;
}

export function startController(opts: BenchOptions, spec: ControllerSpec): RunningControllerProcess {
  mkdirSync(opts.workDir, { recursive: true });
  const dir = mkdtempSync(join(opts.workDir, 'controller-'));
  const child = startChild({
    label: 'controller',
    script: spec.cli ?? cliPath(),
    args: controllerArgs(opts, spec),
    logDir: dir,
    cpuProfDir: opts.cpuProf ? join(opts.resultsDir, 'profiles') : undefined,
  });
  return {
    label: 'controller',
    pid: child.pid,
    logPath: child.logPath,
    exitStatus: () => child.exitStatus(),
    peakRss: () => peakRssBytes(child.pid),
    stop: () => child.stop(),
  };
}
