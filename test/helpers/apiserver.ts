/**
 * Shared integration-test helpers: an embedded API server on port 0 with memory storage in a
 * temp dir, a client-node KubeConfig for it, and kubectl runners (fresh discovery cache each
 * time, so a changed resource list is never hidden by kubectl's cache).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { after, before } from 'node:test';
import { pino } from 'pino';
import { RestTransport } from '../../src/kube-client/transport.js';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '@pv-controller/apiserver/server.js';
import { findKubectl } from '../../tools/cluster/binaries.js';
import { onRealControlPlane, startRealTestApiServer } from './control-plane.js';

/** What tests may rely on from either server: where it is and an admin kubeconfig for it. */
export type TestServerAddress = Pick<RunningApiServer, 'url' | 'token' | 'caPem' | 'kubeconfigPath'>;

export interface TestApiServer {
  server: TestServerAddress;
  /** The embedded server, when the test runs against it (undefined on the real control plane). */
  embedded?: RunningApiServer;
  /** Loaded from the server's kubeconfig (current context = the server, namespace default). */
  kc: KubeConfig;
  /**
   * The kubeconfig the controller uses: the admin's on the embedded server, the ServiceAccount of
   * deploy/rbac.yaml on the real control plane (so every run there proves that role is enough).
   */
  controllerKubeconfigPath: string;
  dataDir: string;
  /** Stops the server and removes the temp data dir. */
  stop(): Promise<void>;
}

/** A client-node KubeConfig with the controller's credentials (see controllerKubeconfigPath). */
export function controllerKubeConfig(api: TestApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(api.controllerKubeconfigPath);
  return kc;
}

/** A test server that is always the embedded one (tests of the embedded server itself). */
export interface EmbeddedTestApiServer extends TestApiServer {
  server: RunningApiServer;
  embedded: RunningApiServer;
}

/**
 * Starts a memory-backed embedded server in a fresh temp dir, or, under `npm run test:cluster`
 * (PV_TEST_CONTROL_PLANE=real), a real kube-apiserver on an empty etcd prefix; `opts` only
 * applies to the embedded server.
 */
export async function startTestApiServer(opts: Partial<ApiServerOptions> = {}): Promise<TestApiServer> {
  return onRealControlPlane() ? startRealTestApiServer() : startEmbeddedTestApiServer(opts);
}

/** The embedded server, memory-backed, in a fresh temp dir. Set PV_TEST_LOG=debug to see its log. */
export async function startEmbeddedTestApiServer(opts: Partial<ApiServerOptions> = {}): Promise<EmbeddedTestApiServer> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'pvc-apiserver-')));
  const logger = opts.logger ?? pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  const server = await startApiServer({ storage: 'memory', listen: '127.0.0.1:0', ...opts, dataDir, logger });
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  let stopped: Promise<void> | undefined;
  return {
    server,
    embedded: server,
    kc,
    controllerKubeconfigPath: server.kubeconfigPath,
    dataDir,
    stop: () => {
      stopped ??= server.stop().finally(() => rm(dataDir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** Runs `fn` with a fresh server of startTestApiServer, stopped afterwards whatever `fn` does. */
export function withTestApiServer(fn: (t: TestApiServer) => Promise<void>, opts: Partial<ApiServerOptions> = {}): Promise<void> {
  return withStarted(startTestApiServer(opts), fn);
}

/** Runs `fn` with a fresh embedded server (startEmbeddedTestApiServer), stopped afterwards whatever `fn` does. */
export function withEmbeddedTestApiServer(fn: (t: EmbeddedTestApiServer) => Promise<void>, opts: Partial<ApiServerOptions> = {}): Promise<void> {
  return withStarted(startEmbeddedTestApiServer(opts), fn);
}

async function withStarted<T extends TestApiServer>(starting: Promise<T>, fn: (t: T) => Promise<void>): Promise<void> {
  const t = await starting;
  try {
    await fn(t);
  } finally {
    await t.stop();
  }
}

/** The kubectl `npm run cluster:build` built, else the one on PATH, else undefined (tools/cluster/binaries.ts chooseKubectl). */
export function kubectlPath(): string | undefined {
  return findKubectl();
}

/** Reason string for `test(..., { skip })` when kubectl is missing. */
export const NO_KUBECTL = 'kubectl not found (looked in the cache of `npm run cluster:build` and on PATH)';

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

/** Which kubectl to run (default: kubectlPath()) and variables added to its environment. */
export interface KubectlRunOptions {
  bin?: string;
  env?: Record<string, string>;
}

/** Starts kubectl with the kubeconfig and a fresh `--cache-dir`; for long-running commands like `get -w`. */
export async function startKubectl(args: string[], kubeconfig: string, stdin?: string, run: KubectlRunOptions = {}): Promise<KubectlProcess> {
  const bin = run.bin ?? kubectlPath();
  if (!bin) throw new Error(NO_KUBECTL);
  const cacheDir = await mkdtemp(join(tmpdir(), 'kubectl-cache-'));
  const child = spawn(bin, [...args, '--kubeconfig', kubeconfig, '--cache-dir', cacheDir], {
    env: { ...process.env, ...run.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir, HOME: cacheDir },
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
  opts: { stdin?: string; timeoutMs?: number } & KubectlRunOptions = {},
): Promise<KubectlResult> {
  const proc = await startKubectl(args, kubeconfig, opts.stdin, opts);
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

/**
 * A test API server and a RestTransport to it for the tests of one file: started before them,
 * closed and stopped after them. Read `srv` and `transport` inside the tests.
 */
export function useServerAndTransport(): { readonly srv: TestApiServer; readonly transport: RestTransport } {
  let srv: TestApiServer | undefined;
  let transport: RestTransport | undefined;
  before(async () => {
    srv = await startTestApiServer();
    transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  });
  after(async () => {
    transport?.close();
    await srv?.stop();
  });
  return {
    get srv() {
      if (!srv) throw new Error('the test API server is not started yet');
      return srv;
    },
    get transport() {
      if (!transport) throw new Error('the test API server is not started yet');
      return transport;
    },
  };
}
