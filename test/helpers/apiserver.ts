/**
 * Shared integration-test helpers: an embedded API server on port 0 with memory storage in a
 * temp dir, a client-node KubeConfig for it, and kubectl runners (fresh discovery cache each
 * time, so a changed resource list is never hidden by kubectl's cache).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../src/apiserver/server.js';

export interface TestApiServer {
  server: RunningApiServer;
  /** Loaded from the server's kubeconfig (current context = the server, namespace default). */
  kc: KubeConfig;
  dataDir: string;
  /** Stops the server and removes the temp data dir. */
  stop(): Promise<void>;
}

/** Starts a memory-backed server in a fresh temp dir. Set PV_TEST_LOG=debug to see its log. */
export async function startTestApiServer(opts: Partial<ApiServerOptions> = {}): Promise<TestApiServer> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'pvc-apiserver-')));
  const logger = opts.logger ?? pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  const server = await startApiServer({ storage: 'memory', listen: '127.0.0.1:0', ...opts, dataDir, logger });
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  let stopped: Promise<void> | undefined;
  return {
    server,
    kc,
    dataDir,
    stop: () => {
      stopped ??= server.stop().finally(() => rm(dataDir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** kubectl 1.32 (google-cloud-sdk's versioned binary), else `kubectl` on PATH, else undefined. */
export function kubectlPath(): string | undefined {
  const pinned = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
  if (isExecutable(pinned)) return pinned;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, 'kubectl'))) return join(dir, 'kubectl');
  }
  return undefined;
}

/** Reason string for `test(..., { skip })` when kubectl is missing. */
export const NO_KUBECTL = 'kubectl not found (looked for /usr/lib/google-cloud-sdk/bin/kubectl.1.32 and kubectl on PATH)';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface KubectlProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches, or rejects after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Kills kubectl (by pid) and removes its cache dir. */
  stop(): Promise<KubectlResult>;
}

/** Starts kubectl with the kubeconfig and a fresh `--cache-dir`; for long-running commands like `get -w`. */
export async function startKubectl(args: string[], kubeconfig: string, stdin?: string): Promise<KubectlProcess> {
  const bin = kubectlPath();
  if (!bin) throw new Error(NO_KUBECTL);
  const cacheDir = await mkdtemp(join(tmpdir(), 'kubectl-cache-'));
  const child = spawn(bin, [...args, '--kubeconfig', kubeconfig, '--cache-dir', cacheDir], {
    env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir, HOME: cacheDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin!.end(stdin ?? '');
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput: (pattern, timeoutMs = 20_000) =>
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(out)) return;
          cleanup();
          resolve(out);
        };
        const fail = (why: string) => (): void => {
          cleanup();
          reject(new Error(`kubectl output never matched ${pattern} (${why})\nstdout:\n${out}\nstderr:\n${err}`));
        };
        const onExit = fail('kubectl exited');
        const timer = setTimeout(fail(`${timeoutMs} ms passed`), timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('close', onExit);
        };
        child.stdout!.on('data', check);
        child.once('close', onExit);
        check();
        if (child.exitCode !== null || child.signalCode !== null) onExit();
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      const code = await exited;
      await rm(cacheDir, { recursive: true, force: true });
      return { code, stdout: out, stderr: err };
    },
  };
}

/** Runs kubectl to completion (killed after `timeoutMs`). */
export async function runKubectl(
  args: string[],
  kubeconfig: string,
  opts: { stdin?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  const proc = await startKubectl(args, kubeconfig, opts.stdin);
  const timer = setTimeout(() => {
    if (proc.child.pid !== undefined && proc.child.exitCode === null) process.kill(proc.child.pid, 'SIGKILL');
  }, opts.timeoutMs ?? 60_000);
  try {
    await new Promise<void>((resolve) => {
      if (proc.child.exitCode !== null) resolve();
      else proc.child.once('close', () => resolve());
    });
  } finally {
    clearTimeout(timer);
  }
  return proc.stop();
}
