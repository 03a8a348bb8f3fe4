/**
 * What `pv-controller up` runs once its flags are parsed (up.ts): the embedded API server, the
 * default classes, the plugins and the controller, the banner, and the shutdown.
 */
import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { KubeConfig, StorageV1Api } from '@kubernetes/client-node';
import { ensureDefaultSnapshotClass, ensureDefaultStorageClass } from '../kube-client/bootstrap.js';
import { createControllerLogger, defaultModules, startController } from '../controller/index.js';
import type { ControllerOptions } from '../controller/options.js';
import { HOST_PATH_PROVISIONER } from '../plugins/host-path/index.js';
import type { PluginSettings } from '../plugins/from-options.js';
import { startPlugins } from './plugin-start.js';
import { ControllerMetrics } from '../metrics/prometheus.js';
import { previousFreePort, removeMetricsAddress, upVolumesRoot, writeMetricsAddress } from './up-data-dir.js';
import { loadEmbeddedApiServer } from './embedded-apiserver.js';
import { classesLine } from './banner.js';

export interface UpFlags {
  dataDir: string;
  listen: string;
  storage: 'sqlite' | 'memory';
}

export async function runUp(upFlags: UpFlags, cmd: Command, opts: ControllerOptions, settings: PluginSettings): Promise<void> {
  const dataDir = resolve(upFlags.dataDir);
  const volumes = upVolumesRoot(dataDir);
  const logger = createControllerLogger(opts.logFormat, opts.logLevel);
  await mkdir(volumes, { recursive: true });
  await removeMetricsAddress(dataDir);
  const listen = cmd.getOptionValueSource('listen') === 'default' ? await reusedListen(dataDir, upFlags.listen) : upFlags.listen;
  const { startApiServer } = await loadEmbeddedApiServer();
  const server = await startApiServer({ dataDir, storage: upFlags.storage, listen, logger: logger.child({ component: 'apiserver' }) });
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  await ensureDefaultStorageClass(kc, { name: 'standard', provisioner: HOST_PATH_PROVISIONER });
  // Snapshots of its claims, restores and clones work with kubectl alone (examples/snapshot.yaml).
  await ensureDefaultSnapshotClass(kc, { name: 'standard', driver: HOST_PATH_PROVISIONER });
  // The default class's volumes live under DIR/volumes, beside any root the flags add.
  const metrics = new ControllerMetrics();
  metrics.collectProcessMetrics();
  const { plugins, close: closePlugins } = await startPlugins({ ...settings, hostPathRoots: [volumes, ...settings.hostPathRoots] }, kc, logger, metrics.registry);
  const controller = await startController({ ...opts, kubeconfig: server.kubeconfigPath }, { kubeConfig: kc, plugins, modules: defaultModules(), logger, metrics });
  const metricsServer = controller.observability.server;
  if (metricsServer) await writeMetricsAddress(dataDir, `${metricsServer.url}/metrics`);
  printBanner(server.url, server.kubeconfigPath, volumes, upFlags.storage, await readClassesLine(kc));
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void removeMetricsAddress(dataDir)
      .then(() => controller.stop())
      .then(() => server.stop())
      .then(() => closePlugins())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
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

/** The banner's class line, from the classes as they are now; a plain statement if they cannot be read. */
async function readClassesLine(kc: KubeConfig): Promise<string> {
  try {
    const list = await kc.makeApiClient(StorageV1Api).listStorageClass();
    const classes = list.items.map((c) => ({
      name: c.metadata?.name ?? '',
      provisioner: c.provisioner,
      ...(c.metadata?.annotations ? { annotations: c.metadata.annotations } : {}),
      ...(c.metadata?.creationTimestamp ? { creationTimestamp: new Date(c.metadata.creationTimestamp).toISOString() } : {}),
    }));
    return classesLine(classes, { name: 'standard', kind: 'host-path' });
  } catch (err) {
    return `StorageClass "standard" (host-path) was created when absent; the classes could not be listed: ${(err as Error).message}.`;
  }
}

function printBanner(url: string, kubeconfig: string, volumes: string, storage: string, classes: string): void {
  const kubectl = `kubectl --kubeconfig ${shown(kubeconfig)}`;
  process.stdout.write(
    [
      '',
      `pv-controller is up: API server ${url} (${storage} storage), volumes under ${shown(volumes)}`,
      `${classes} VolumeSnapshotClass "standard" (host-path, default) is ready. Try:`,
      '',
      `  ${kubectl} apply -f examples/claim.yaml`,
      `  ${kubectl} get pvc,pv`,
      `  ${kubectl} apply -f examples/snapshot.yaml     # then restore.yaml, clone.yaml`,
      '',
      'One identity, the kubeconfig\'s admin, and no RBAC: users impersonated with --as may do only what any authenticated user may.',
      'Ctrl-C stops it; everything is kept for the next start.',
      '',
    ].join('\n') + '\n',
  );
}
