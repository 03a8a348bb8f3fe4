/**
 * `pv-controller up` — the main job `npm start` runs: the embedded API server and the controller
 * in one process, a default StorageClass `standard` backed by host-path volumes under
 * DIR/volumes, the kubeconfig at DIR/kubeconfig, and a banner with the exact kubectl command to
 * try. The controller still talks to the server only over HTTPS, as it would to a real cluster.
 */
import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { Command, type Option } from 'commander';
import { KubeConfig } from '@kubernetes/client-node';
import { ensureDefaultStorageClass } from '../kube-client/bootstrap.js';
import {
  createControllerLogger,
  defaultModules,
  startController,
} from '../controller/index.js';
import { HOST_PATH_PROVISIONER } from '../plugins/host-path/index.js';
import { parseFlags } from './controller.js';
import { addOptions, controllerFlags, flags } from './flags.js';
import { csiFlags, pluginFlags, startPlugins } from './plugin-flags.js';
import { ControllerMetrics } from '../metrics/prometheus.js';
import { previousFreePort, upVolumesRoot } from './up-data-dir.js';
import { loadEmbeddedApiServer } from './embedded-apiserver.js';

interface UpFlags {
  dataDir: string;
  listen: string;
  storage: 'sqlite' | 'memory';
}

/**
 * Where `up` differs from `controller` and `apiserver`, and why: one process on one machine. The
 * rest of every flag (help text, parsing) is the same definition.
 */
const UP_DEFAULTS: Record<string, unknown> = {
  // A free port, so a second `npm start` or a running kube-apiserver never collides with it.
  '--listen': '127.0.0.1:0',
  // One process: there is no other replica to elect against.
  '--leader-elect': false,
  // The API server runs in this process, on loopback: no shared server to protect.
  '--kube-api-qps': '5000',
  '--kube-api-burst': '10000',
  // A person reads it in a terminal.
  '--log-format': 'text',
};

function withUpDefault(option: Option): Option {
  return option.long !== undefined && option.long in UP_DEFAULTS ? option.default(UP_DEFAULTS[option.long]) : option;
}

export function register(program: Command): void {
  const command = program
    .command('up')
    .description('Run an embedded API server and the controller in one process (what `npm start` runs)');
  const options = [flags.dataDir(), flags.listen(), flags.storage(), ...controllerFlags(), ...pluginFlags(), ...csiFlags()];
  addOptions(command, options.map(withUpDefault)).action(async (upFlags: UpFlags, cmd: Command) => {
    const { opts, plugins: settings } = parseFlags(cmd);
    const dataDir = resolve(upFlags.dataDir);
    const volumes = upVolumesRoot(dataDir);
    const logger = createControllerLogger(opts.logFormat, opts.logLevel);
    await mkdir(volumes, { recursive: true });
    const listen = cmd.getOptionValueSource('listen') === 'default' ? await reusedListen(dataDir, upFlags.listen) : upFlags.listen;
    const { startApiServer } = await loadEmbeddedApiServer();
    const server = await startApiServer({ dataDir, storage: upFlags.storage, listen, logger: logger.child({ component: 'apiserver' }) });
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    await ensureDefaultStorageClass(kc, { name: 'standard', provisioner: HOST_PATH_PROVISIONER });
    // The default class's volumes live under DIR/volumes, beside any root the flags add.
    const metrics = new ControllerMetrics();
    const { plugins, close: closePlugins } = await startPlugins({ ...settings, hostPathRoots: [volumes, ...settings.hostPathRoots] }, kc, logger, metrics.registry);
    const controller = await startController({ ...opts, kubeconfig: server.kubeconfigPath }, { kubeConfig: kc, plugins, modules: defaultModules(), logger, metrics });
    printBanner(server.url, server.kubeconfigPath, volumes, upFlags.storage);
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      void controller
        .stop()
        .then(() => server.stop())
        .then(() => closePlugins())
        .then(() => process.exit(0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

/** `--listen` left at its default (a free port): the last start's port when it is free, so the kubeconfig stays valid. */
async function reusedListen(dataDir: string, listen: string): Promise<string> {
  const host = listen.slice(0, listen.lastIndexOf(':'));
  const port = await previousFreePort(dataDir, host);
  return port === undefined ? listen : `${host}:${port}`;
}

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

function printBanner(url: string, kubeconfig: string, volumes: string, storage: string): void {
  const kubectl = `kubectl --kubeconfig ${shown(kubeconfig)}`;
  process.stdout.write(
    [
      '',
      `pv-controller is up: API server ${url} (${storage} storage), volumes under ${shown(volumes)}`,
      'StorageClass "standard" (host-path, default) is ready. Try:',
      '',
      `  ${kubectl} apply -f examples/claim.yaml`,
      `  ${kubectl} get pvc,pv`,
      '',
      'Ctrl-C stops it; everything is kept for the next start.',
      '',
    ].join('\n') + '\n',
  );
}
