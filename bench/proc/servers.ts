/**
 * The servers the bench drives, each in its own child process so server CPU and client CPU
 * are separable: the bare write floor (bare-server.ts) and the embedded API server exactly as
 * users run it (`pv-controller apiserver --data-dir D --storage memory|sqlite --listen
 * 127.0.0.1:0`, which writes D/kubeconfig), whose request counters the bench reads from
 * GET /debug/api-stats. With --kubeconfig the "server" is the given cluster and nothing is
 * started.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiled, cliPath, outputRoot } from '../paths.js';
import type { BenchOptions, StorageKind } from '../scenario.js';
import { connect } from '../client/kube-client.js';
import { logTail, startChild, waitFor, type RunningChild } from './child.js';

export type ServerKind = 'bare' | StorageKind | 'cluster' | 'kube-apiserver';

/**
 * The embedded server's request counters (packages/apiserver/src/http/stats.ts ApiStats, the fields used).
 * A read is itself counted once it has been answered, so the difference of two reads includes
 * the first read: `requestsBetween` subtracts it.
 */
export interface ServerStats {
  requests: number;
  byVerb: Record<string, number>;
  byVerbResource: Record<string, number>;
  conflicts: number;
  alreadyExists: number;
}

export interface BenchServer {
  kind: ServerKind;
  kubeconfig: string;
  /** Absent for an external cluster. */
  child?: RunningChild;
  /** The server's processes, whose CPU and memory are the server's (empty for an external cluster). */
  pids: number[];
  /** Request counters since start; undefined when the server cannot report them (bare, cluster). */
  stats(): Promise<ServerStats | undefined>;
  stop(): Promise<void>;
}

export const noStats = async (): Promise<undefined> => undefined;

let commandsCache: string[] | undefined;

/** Commands the compiled CLI offers (empty when it is missing or broken). */
export function cliCommands(): string[] {
  if (commandsCache) return commandsCache;
  commandsCache = [];
  if (!existsSync(cliPath())) return commandsCache;
  try {
    const help = execFileSync(process.execPath, [cliPath(), '--help'], { encoding: 'utf8', timeout: 20_000 });
    const section = help.split(/^Commands:$/m)[1] ?? '';
    commandsCache = [...section.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]);
  } catch {
    // A CLI that cannot even print help offers nothing.
  }
  return commandsCache;
}

/** Why a CLI command cannot be used yet, or undefined when it can. */
export function missingCommand(command: string): string | undefined {
  return cliCommands().includes(command) ? undefined : `\`pv-controller ${command}\` is not available yet`;
}

/** Why a compiled module cannot be used (missing, fails to load, lacks the export), or undefined. */
export async function moduleProblem(relative: string, exportName: string, what: string): Promise<string | undefined> {
  const path = compiled(relative);
  if (!existsSync(path)) return `${what} has not landed`;
  try {
    const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    return typeof mod[exportName] === 'function' ? undefined : `${what} does not export ${exportName}`;
  } catch (err) {
    const message = (err instanceof Error ? err.message.split('\n')[0] : String(err)).replaceAll(outputRoot(), '');
    return `${what} does not load yet (${message.replace(/^Cannot find module '([^']+)'.*$/, 'missing $1')})`;
  }
}

/** Why the embedded API server cannot be used, or undefined when it can (or a cluster is given). */
export async function embeddedServerUnavailable(opts: Pick<BenchOptions, 'kubeconfig'>): Promise<string | undefined> {
  if (opts.kubeconfig) return undefined;
  return missingCommand('apiserver');
}

/** Requests answered between two stats reads, not counting the first read itself. */
export function requestsBetween(before: ServerStats, after: ServerStats): number {
  return after.requests - before.requests - 1;
}

export function scratchDir(opts: BenchOptions, label: string): string {
  mkdirSync(opts.workDir, { recursive: true });
  return mkdtempSync(join(opts.workDir, `${label}-`));
}

/** The most telling line of a crashed child's log: its first line that is not a stack frame. */
export function firstErrorLine(log: string): string {
  const lines = log.split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l));
  const error = lines.find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? '(no output)';
  return error.replaceAll(outputRoot(), '').slice(0, 240);
}

async function waitUntilServing(child: RunningChild, kubeconfig: string): Promise<void> {
  await waitFor(`${child.label} to write ${kubeconfig}`, async () => {
    const code = child.exitStatus();
    if (code !== undefined) throw new Error(`${child.label} exited (${code}): ${firstErrorLine(logTail(child.logPath, 40))}`);
    return existsSync(kubeconfig) ? true : undefined;
  });
  const client = await connect(kubeconfig);
  try {
    await waitFor(`${child.label} to answer /version`, async () => {
      try {
        const res = await client.raw('GET', '/version');
        return res.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    });
  } finally {
    client.close();
  }
}

function cpuProfDir(opts: BenchOptions): string | undefined {
  return opts.cpuProf ? join(opts.resultsDir, 'profiles') : undefined;
}

export async function startBareServer(opts: BenchOptions): Promise<BenchServer> {
  const dir = scratchDir(opts, 'bare');
  const child = startChild({
    label: 'bare-server',
    script: compiled('bench/proc/bare-server.js'),
    args: [dir],
    logDir: dir,
    cpuProfDir: cpuProfDir(opts),
  });
  const kubeconfig = join(dir, 'kubeconfig');
  await waitUntilServing(child, kubeconfig).catch(async (err: unknown) => {
    await child.stop();
    throw err;
  });
  return { kind: 'bare', kubeconfig, child, pids: [child.pid], stats: noStats, stop: () => child.stop() };
}

function statsReader(kubeconfig: string): () => Promise<ServerStats | undefined> {
  return async () => {
    const client = await connect(kubeconfig);
    try {
      const res = await client.raw('GET', '/debug/api-stats');
      return res.status === 200 ? (JSON.parse(res.body) as ServerStats) : undefined;
    } finally {
      client.close();
    }
  };
}

/**
 * The embedded API server on fresh storage, or the given cluster when --kubeconfig is set. `cli`
 * is the compiled CLI to run: this checkout's, or the --baseline checkout's.
 */
export async function startApiServer(opts: BenchOptions, storage: StorageKind, cli = cliPath()): Promise<BenchServer> {
  if (opts.kubeconfig) {
    return { kind: 'cluster', kubeconfig: opts.kubeconfig, pids: [], stats: noStats, stop: async () => undefined };
  }
  const dir = scratchDir(opts, `apiserver-${storage}`);
  const child = startChild({
    label: `apiserver-${storage}`,
    script: cli,
    args: ['apiserver', '--data-dir', dir, '--storage', storage, '--listen', '127.0.0.1:0'],
    logDir: dir,
    cpuProfDir: cpuProfDir(opts),
  });
  const kubeconfig = join(dir, 'kubeconfig');
  await waitUntilServing(child, kubeconfig).catch(async (err: unknown) => {
    await child.stop();
    throw err;
  });
  return { kind: storage, kubeconfig, child, pids: [child.pid], stats: statsReader(kubeconfig), stop: () => child.stop() };
}

export interface WatchLoad {
  /** Events each watcher had counted when stopped. */
  stop(): Promise<number[]>;
}

/** Starts `count` watchers on `path` in a separate process; resolves once all are connected. */
export async function startWatchers(opts: BenchOptions, kubeconfig: string, count: number, path: string): Promise<WatchLoad> {
  const dir = scratchDir(opts, 'watchers');
  const child = startChild({
    label: 'watchers',
    script: compiled('bench/proc/watchers.js'),
    args: [kubeconfig, String(count), path],
    logDir: dir,
    cpuProfDir: cpuProfDir(opts),
  });
  await waitFor('watchers to connect', async () => {
    const code = child.exitStatus();
    if (code !== undefined) throw new Error(`watchers exited (${code}):\n${logTail(child.logPath)}`);
    return /^ready$/m.test(logTail(child.logPath, 50)) ? true : undefined;
  });
  return {
    async stop() {
      await child.stop();
      const line = /^events (.*)$/m.exec(logTail(child.logPath, 50));
      return line ? line[1].split(' ').map(Number) : [];
    },
  };
}
