/**
 * An embedded API server and a controller with real plugins in one test process: the shape every
 * integration test of binding, provisioning and reclaim needs. The controller talks to the
 * server only over HTTPS through its kubeconfig, exactly as it would to a real cluster.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startController, type RunningController } from '../../src/controller/controller.js';
import type { ControllerModule } from '../../src/controller/runtime/module.js';
import { defaultModules } from '../../src/controller/modules.js';
import { parseControllerOptions, type ControllerOptions } from '../../src/controller/options.js';
import { loadKubeConfig } from '../../src/kube-client/kubeconfig.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import type { ApiServerOptions } from '@pv-controller/apiserver/server.js';
import { controllerKubeConfig, startTestApiServer, type TestApiServer } from './apiserver.js';

export interface TestClusterOptions {
  /** Plugins besides (or instead of) the default host-path plugin on `hostPathRoot`. */
  plugins?: VolumePlugin[];
  /** Leave out the default host-path plugin. */
  noHostPath?: boolean;
  modules?: ControllerModule[];
  controllerOptions?: Partial<ControllerOptions>;
  /** Don't start a controller (tests that start their own). */
  noController?: boolean;
  /** Options for the embedded API server (storage, a data directory prepared beforehand, ...). */
  apiServer?: Partial<ApiServerOptions>;
}

export interface TestCluster {
  kc: KubeConfig;
  api: TestApiServer;
  /** The running controller (undefined while stopped). */
  controller: RunningController | undefined;
  dataDir: string;
  /** Root directory of the default host-path plugin. */
  hostPathRoot: string;
  plugins: PluginRegistry;
  options: ControllerOptions;
  startController(overrides?: Partial<ControllerOptions>): Promise<RunningController>;
  stopController(): Promise<void>;
  restartController(overrides?: Partial<ControllerOptions>): Promise<RunningController>;
  stop(): Promise<void>;
}

/** Options for tests: no leader election, a short resync, fast retries, quiet logs. */
export function testControllerOptions(kubeconfig: string, hostPathRoot: string, overrides: Partial<ControllerOptions> = {}): ControllerOptions {
  const base = parseControllerOptions({
    kubeconfig,
    leaderElect: false,
    pvclaimbinderSyncPeriod: '2s',
    kubeApiQps: '1000',
    kubeApiBurst: '2000',
    // Each test controller serves /metrics on a free port, never the shared default 10258.
    metricsBindAddress: '127.0.0.1:0',
  });
  return { ...base, ...overrides };
}

export async function startTestCluster(opts: TestClusterOptions = {}): Promise<TestCluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pvc-cluster-'));
  const hostPathRoot = join(dataDir, 'volumes');
  await mkdir(hostPathRoot);
  const api = await startTestApiServer({ dataDir: join(dataDir, 'api'), ...opts.apiServer });
  const plugins = new PluginRegistry([
    ...(opts.noHostPath ? [] : [new HostPathPlugin({ roots: [hostPathRoot] })]),
    ...(opts.plugins ?? []),
  ]);
  const logger = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  const options = testControllerOptions(api.controllerKubeconfigPath, hostPathRoot, opts.controllerOptions);
  const controllerKc = controllerKubeConfig(api);
  const cluster: TestCluster = {
    kc: api.kc,
    api,
    controller: undefined,
    dataDir,
    hostPathRoot,
    plugins,
    options,
    async startController(overrides = {}) {
      if (cluster.controller) throw new Error('a controller is already running');
      // Another kubeconfig (a fault-injecting proxy's) replaces the controller's credentials.
      const kubeConfig = overrides.kubeconfig ? loadKubeConfig(overrides.kubeconfig) : controllerKc;
      cluster.controller = await startController(
        { ...options, ...overrides },
        { plugins, modules: opts.modules ?? defaultModules(), kubeConfig, logger },
      );
      return cluster.controller;
    },
    async stopController() {
      const running = cluster.controller;
      cluster.controller = undefined;
      await running?.stop();
    },
    async restartController(overrides = {}) {
      await cluster.stopController();
      return cluster.startController(overrides);
    },
    async stop() {
      await cluster.stopController();
      await api.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  if (!opts.noController) await cluster.startController();
  return cluster;
}
